package daemon

import (
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the daemon's Prometheus series; a nil *metrics records
// nothing, so commands without --metrics pay nothing.
type metrics struct {
	reg       *prometheus.Registry
	recv      prometheus.Counter
	store     prometheus.Counter
	reject    *prometheus.CounterVec
	pub       *prometheus.CounterVec
	fold      prometheus.Histogram
	quotas    *prometheus.CounterVec
	stubs     prometheus.Counter
	deferred  *prometheus.CounterVec
	holds     *prometheus.CounterVec
	backlog   *prometheus.GaugeVec
	relays    prometheus.GaugeFunc
	byStatus  *prometheus.GaugeVec
	connected func() int
}

func newMetrics(connected func() int) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), connected: connected}
	m.recv = prometheus.NewCounter(prometheus.CounterOpts{Name: "vesper_events_received_total", Help: "Game events received from relays (after id/signature checks)."})
	m.store = prometheus.NewCounter(prometheus.CounterOpts{Name: "vesper_events_stored_total", Help: "Events stored for the first time."})
	m.reject = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_events_rejected_total", Help: "Events refused, by reason."}, []string{"reason"})
	m.pub = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_publish_total", Help: "Outbox publish attempts, by outcome."}, []string{"outcome"})
	m.fold = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "vesper_fold_seconds", Help: "Time to fold one match.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 8)})
	m.relays = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vesper_relays_connected", Help: "Relays connected now."}, func() float64 { return float64(m.connected()) })
	m.byStatus = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "vesper_matches", Help: "Matches by status; dormant counts the abandoned matches this daemon leaves in the store (their status stays active or over)."}, []string{"status"})
	m.quotas = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_quota_dropped_total", Help: "Events dropped by a quota, by quota (open_challenges, match_events, relay_challenges)."}, []string{"quota"})
	m.deferred = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_duties_deferred_total", Help: "Duties left for a later pass, by why (per_pass: the --max-duties bound; skew: it would be stamped beyond --max-skew)."}, []string{"why"})
	m.stubs = prometheus.NewCounter(prometheus.CounterOpts{Name: "vesper_events_stubbed_total", Help: "Events every match ignores for what they are (over 65536 bytes, not one g tag), stored as a small stub without their body."})
	m.holds = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_challenges_held_total", Help: "Challenges over a relay's hourly budget kept to retry, each counted once however often it is sent or offered again (held), and held ones dropped to keep --held-challenges (evicted)."}, []string{"what"})
	m.backlog = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "vesper_duties_held_back", Help: "Duties due that the last pass held back for an hourly budget (records: --records-per-hour, rulings: --rulings-per-hour) or because a player is not listed (records_unlisted); they are done when the budget or the listing allows."}, []string{"what"})
	m.reg.MustRegister(m.recv, m.store, m.reject, m.pub, m.fold, m.relays, m.byStatus, m.quotas, m.deferred, m.stubs, m.holds, m.backlog)
	return m
}

// serve exposes /metrics on addr until the listener fails.
func (m *metrics) serve(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	go func() { _ = (&http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}).Serve(ln) }()
	return ln, nil
}

func (m *metrics) received() {
	if m != nil {
		m.recv.Inc()
	}
}

func (m *metrics) stored() {
	if m != nil {
		m.store.Inc()
	}
}

func (m *metrics) rejected(reason string) {
	if m != nil {
		m.reject.WithLabelValues(reason).Inc()
	}
}

func (m *metrics) published(ok bool) {
	if m != nil {
		outcome := "failed"
		if ok {
			outcome = "accepted"
		}
		m.pub.WithLabelValues(outcome).Inc()
	}
}

func (m *metrics) observeFold(d time.Duration) {
	if m != nil {
		m.fold.Observe(d.Seconds())
	}
}

func (m *metrics) statuses(counts map[string]int) {
	if m != nil {
		for s, c := range counts {
			m.byStatus.WithLabelValues(s).Set(float64(c))
		}
	}
}

func (m *metrics) quota(name string) {
	if m != nil {
		m.quotas.WithLabelValues(name).Inc()
	}
}

func (m *metrics) deferDuty(why string) {
	if m != nil {
		m.deferred.WithLabelValues(why).Inc()
	}
}

func (m *metrics) stubbed() {
	if m != nil {
		m.stubs.Inc()
	}
}

// held counts challenges held for the first time, which the relay budget
// dropped, and held ones evicted.
func (m *metrics) held(held, evicted int) {
	if m != nil {
		m.quotas.WithLabelValues("relay_challenges").Add(float64(held))
		m.holds.WithLabelValues("held").Add(float64(held))
		m.holds.WithLabelValues("evicted").Add(float64(evicted))
	}
}

func (m *metrics) heldBack(what string, n int) {
	if m != nil {
		m.backlog.WithLabelValues(what).Set(float64(n))
	}
}
