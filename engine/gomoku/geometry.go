package gomoku

// geometry is fixed board data, computed once.
type geometry struct {
	points       []int        // the 225 playable cells, a1, b1, ..., o15
	neighbours   [cells][]int // playable cells within two points (Chebyshev)
	windows      [][5]int     // every five-in-a-row segment
	pointWindows [cells][]int
	// code[c][cell] is a cell's two-bit window code as colour c sees it.
	code [3][4]uint8
	// shape[key] is the line shape a stone at the centre of a window makes.
	shape [1 << 16]shape
}

var geo = newGeometry()

func newGeometry() *geometry {
	g := &geometry{}
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			g.points = append(g.points, at(x, y))
		}
	}
	for _, i := range g.points {
		x, y := coords(i)
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				xx, yy := x+dx, y+dy
				if (dx != 0 || dy != 0) && xx >= 0 && xx < Size && yy >= 0 && yy < Size {
					g.neighbours[i] = append(g.neighbours[i], at(xx, yy))
				}
			}
		}
	}
	inside := func(x, y int) bool { return x >= 0 && x < Size && y >= 0 && y < Size }
	dirs := [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}
	for _, i := range g.points {
		x, y := coords(i)
		for _, d := range dirs {
			if !inside(x+4*d[0], y+4*d[1]) {
				continue
			}
			var w [5]int
			for k := range w {
				w[k] = at(x+k*d[0], y+k*d[1])
				g.pointWindows[w[k]] = append(g.pointWindows[w[k]], len(g.windows))
			}
			g.windows = append(g.windows, w)
		}
	}
	for c := black; c <= white; c++ {
		g.code[c] = [4]uint8{0, 2, 2, 2}
		g.code[c][c] = 1
	}
	buildShapes(&g.shape)
	return g
}
