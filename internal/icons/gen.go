//go:build ignore

// Command gen draws the app's PNG icons from the favicon's design (static/favicon.svg: a blue
// rounded square with a white speech bubble holding three dots) with Go's image packages, 4×4
// samples a pixel. Run it from the repository's root when the design changes:
//
//	go run internal/icons/gen.go
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

var (
	blue  = color.NRGBA{0x24, 0x57, 0xd6, 0xff}
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// inRoundRect reports whether (x, y) is inside the rectangle [x0,x1]×[y0,y1] with corner radius r.
func inRoundRect(x, y, x0, y0, x1, y1, r float64) bool {
	if x < x0 || x > x1 || y < y0 || y > y1 {
		return false
	}
	cx := math.Max(x0+r, math.Min(x, x1-r))
	cy := math.Max(y0+r, math.Min(y, y1-r))
	return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
}

// inTriangle reports whether p is inside the triangle abc.
func inTriangle(px, py, ax, ay, bx, by, cx, cy float64) bool {
	s := func(x1, y1, x2, y2, x3, y3 float64) float64 { return (x1-x3)*(y2-y3) - (x2-x3)*(y1-y3) }
	d1, d2, d3 := s(px, py, ax, ay, bx, by), s(px, py, bx, by, cx, cy), s(px, py, cx, cy, ax, ay)
	neg := d1 < 0 || d2 < 0 || d3 < 0
	pos := d1 > 0 || d2 > 0 || d3 > 0
	return !(neg && pos)
}

// design is the favicon's colour at (x, y) in its 64-unit square, nil outside the shape.
// fullBleed fills the whole square (maskable and Home Screen icons, which the system shapes);
// scale shrinks the bubble about the centre into the safe zone.
func design(x, y float64, fullBleed bool, scale float64) color.Color {
	if !fullBleed && !inRoundRect(x, y, 0, 0, 64, 64, 14) {
		return nil
	}
	bx, by := 32+(x-32)/scale, 32+(y-32)/scale
	for _, dx := range []float64{24, 32, 40} {
		if (bx-dx)*(bx-dx)+(by-27)*(by-27) <= 9 {
			return blue
		}
	}
	if inRoundRect(bx, by, 14, 12, 50, 42, 6) || inTriangle(bx, by, 28, 41.5, 18, 51, 18, 41.5) {
		return white
	}
	return blue
}

func draw(path string, size int, fullBleed bool, scale float64) {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const n = 4
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < n; sy++ {
				for sx := 0; sx < n; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/n) * 64 / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/n) * 64 / float64(size)
					if c := design(x, y, fullBleed, scale); c != nil {
						cr, cg, cb, _ := c.RGBA()
						r, g, b, a = r+float64(cr>>8), g+float64(cg>>8), b+float64(cb>>8), a+1
					}
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{uint8(r / a), uint8(g / a), uint8(b / a), uint8(255 * a / (n * n))})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	draw("static/icon-192.png", 192, false, 1)
	draw("static/icon-512.png", 512, false, 1)
	draw("static/icon-maskable-512.png", 512, true, 0.72) // the bubble within the central 80 % circle
	draw("static/apple-touch-icon.png", 180, true, 0.85)
}
