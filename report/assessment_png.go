package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/evalgate/evalgate/assess"
)

// pngScale is how many pixels of assessment.png a unit of the badge
// layout takes: the PNG is the SVG at 2×, 600×300.
const pngScale = 2

// AssessmentPNG renders assessment.png: the badge of AssessmentSVG drawn
// in Go at 600×300, with the Go fonts, so no font or renderer needs to be
// installed. The same assessment gives the same bytes.
func AssessmentPNG(a *assess.Assessment) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, badgeWidth*pngScale, badgeHeight*pngScale))
	faces := map[[2]int]font.Face{} // by size in tenths and boldness
	for _, sh := range badgeLayout(a) {
		if sh.text == "" {
			if sh.stroke != "" {
				fillRounded(img, sh.x-0.5, sh.y-0.5, sh.w+1, sh.h+1, sh.r, hexColour(sh.stroke))
				fillRounded(img, sh.x+0.5, sh.y+0.5, sh.w-1, sh.h-1, sh.r-1, hexColour(sh.fill))
				continue
			}
			fillRounded(img, sh.x, sh.y, sh.w, sh.h, sh.r, hexColour(sh.fill))
			continue
		}
		key := [2]int{int(math.Round(sh.size * 10)), b2i(sh.bold)}
		face := faces[key]
		if face == nil {
			f, err := newFace(sh.size*pngScale, sh.bold)
			if err != nil {
				return nil, err
			}
			face, faces[key] = f, f
		}
		d := &font.Drawer{Dst: img, Src: image.NewUniform(hexColour(sh.fill)), Face: face}
		text := pngText(sh.text)
		x := fixed.Int26_6(math.Round(sh.x * pngScale * 64))
		switch sh.anchor {
		case "middle":
			x -= d.MeasureString(text) / 2
		case "end":
			x -= d.MeasureString(text)
		}
		d.Dot = fixed.Point26_6{X: x, Y: fixed.Int26_6(math.Round(sh.y * pngScale * 64))}
		d.DrawString(text)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("could not encode the PNG: %w", err)
	}
	return b.Bytes(), nil
}

// pngText is text as the Go fonts should draw it. Their glyph for "-"
// (hyphen-minus) is a minus sign, as wide as a digit and set at the
// height of "+", so "Full-Stack" and "2026-11-28" would read as "Full–Stack"
// and "2026–11–28"; the soft hyphen's glyph is the hyphen the SVG shows.
func pngText(s string) string {
	return strings.ReplaceAll(s, "-", "\u00ad")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newFace is Go Regular or Go Bold at size pixels.
func newFace(size float64, bold bool) (font.Face, error) {
	ttf := goregular.TTF
	if bold {
		ttf = gobold.TTF
	}
	f, err := opentype.Parse(ttf)
	if err != nil {
		return nil, fmt.Errorf("could not load the font: %w", err)
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
}

// fillRounded paints a rounded rectangle given in layout units over img,
// its edges anti-aliased by 4×4 samples a pixel.
func fillRounded(img *image.NRGBA, x, y, w, h, r float64, c color.NRGBA) {
	x, y, w, h, r = x*pngScale, y*pngScale, w*pngScale, h*pngScale, max(0, r*pngScale)
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	x1, y1 := int(math.Ceil(x+w)), int(math.Ceil(y+h))
	inside := func(px, py float64) bool {
		if px < x || px > x+w || py < y || py > y+h {
			return false
		}
		cx := min(max(px, x+r), x+w-r)
		cy := min(max(py, y+r), y+h-r)
		return (px-cx)*(px-cx)+(py-cy)*(py-cy) <= r*r
	}
	for py := max(y0, 0); py < min(y1, img.Bounds().Dy()); py++ {
		for px := max(x0, 0); px < min(x1, img.Bounds().Dx()); px++ {
			n := 0
			for sy := range 4 {
				for sx := range 4 {
					if inside(float64(px)+(float64(sx)+0.5)/4, float64(py)+(float64(sy)+0.5)/4) {
						n++
					}
				}
			}
			if n > 0 {
				blend(img, px, py, c, float64(n)/16)
			}
		}
	}
}

// blend paints c over the pixel at x, y with coverage alpha.
func blend(img *image.NRGBA, x, y int, c color.NRGBA, alpha float64) {
	i := img.PixOffset(x, y)
	p := img.Pix[i : i+4 : i+4]
	a := alpha * float64(c.A) / 255
	dstA := float64(p[3]) / 255
	outA := a + dstA*(1-a)
	if outA == 0 {
		return
	}
	for k, src := range []uint8{c.R, c.G, c.B} {
		v := (float64(src)*a + float64(p[k])*dstA*(1-a)) / outA
		p[k] = uint8(math.Round(v))
	}
	p[3] = uint8(math.Round(outA * 255))
}

// hexColour parses #RRGGBB.
func hexColour(s string) color.NRGBA {
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil || len(s) != 7 {
		return color.NRGBA{A: 255}
	}
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}
