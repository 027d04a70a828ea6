package gomoku

// shape is what one stone makes on one line, from nothing to five.
type shape uint8

const (
	shapeNone      shape = iota
	shapeTwo             // one more stone can make an open three
	shapeThree           // one more stone can make a four
	shapeOpenThree       // one more stone can make an open four
	shapeFour            // exactly one point completes five
	shapeOpenFour        // two or more points complete five
	shapeFive
)

// window cells: index 4 is the stone itself; 0 empty, 1 own, 2 blocked.
type window [9]uint8

func (w *window) fiveThroughCentre() bool {
	n := 1
	for j := 3; j >= 0 && w[j] == 1; j-- {
		n++
	}
	for j := 5; j <= 8 && w[j] == 1; j++ {
		n++
	}
	return n >= 5
}

func (w *window) fivePoints() int {
	n := 0
	for j := range w {
		if w[j] == 0 {
			w[j] = 1
			if w.fiveThroughCentre() {
				n++
			}
			w[j] = 0
		}
	}
	return n
}

// classify reads the shape by asking what one or two more stones on the
// line could make: a four has one completing point, an open three becomes
// a four with two, and so on. Only fives through the centre stone count.
func (w *window) classify() shape {
	if w.fiveThroughCentre() {
		return shapeFive
	}
	switch fp := w.fivePoints(); {
	case fp >= 2:
		return shapeOpenFour
	case fp == 1:
		return shapeFour
	}
	best := shapeNone
	for j := range w {
		if w[j] != 0 {
			continue
		}
		w[j] = 1
		fp := w.fivePoints()
		w[j] = 0
		if fp >= 2 {
			return shapeOpenThree
		}
		if fp == 1 {
			best = shapeThree
		}
	}
	if best != shapeNone {
		return best
	}
	for j := range w {
		if w[j] != 0 {
			continue
		}
		w[j] = 1
		open := false
		for k := range w {
			if w[k] == 0 {
				w[k] = 1
				open = open || w.fivePoints() >= 2
				w[k] = 0
			}
		}
		w[j] = 0
		if open {
			return shapeTwo
		}
	}
	return shapeNone
}

func buildShapes(table *[1 << 16]shape) {
	for key := range table {
		var w window
		valid := true
		for k := 0; k < 8; k++ {
			v := uint8(key >> (2 * k) & 3)
			if v == 3 {
				valid = false
				break
			}
			if k < 4 {
				w[k] = v
			} else {
				w[k+1] = v
			}
		}
		if !valid {
			continue
		}
		w[4] = 1
		// Cells beyond a blocked cell cannot join a line through the centre.
		for k := 3; k >= 0; k-- {
			if w[k] == 2 {
				for j := k - 1; j >= 0; j-- {
					w[j] = 2
				}
				break
			}
		}
		for k := 5; k <= 8; k++ {
			if w[k] == 2 {
				for j := k + 1; j <= 8; j++ {
					w[j] = 2
				}
				break
			}
		}
		table[key] = w.classify()
	}
}
