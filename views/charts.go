package views

import (
	"fmt"
	"strconv"
	"strings"
)

// The reports' pictures are SVG drawn on the server, no script: lines, bars, stacked bars and a
// heat map. Each is as wide as its column (x in percent of the width) and a fixed height in
// pixels, so its text keeps its size at any width, from a 390 px phone to a desktop; the lines
// are drawn in a nested SVG stretched to the plot, with strokes that do not stretch. Each has
// a title and a description for screen readers, and its numbers in a table beside it.

// Series is one set of values of a chart, drawn in the colour of its place (s0, s1, …).
type Series struct {
	Name   string
	Values []int
}

// LineChart draws one line per series over ordered labels (days).
type LineChart struct {
	ID, Title, Desc string
	Labels          []string // one per point
	Series          []Series
}

// BarChart draws grouped bars: one group per label, one bar per series.
type BarChart struct {
	ID, Title, Desc string
	Labels          []string // short labels under the groups
	Series          []Series
}

// StackedBars draws one horizontal bar per row, split into its parts.
type StackedBars struct {
	ID, Title, Desc string
	Parts           []string // the parts' names, in drawing order
	Rows            []StackedRow
}

// StackedRow is one bar: its label and the size of each part.
type StackedRow struct {
	Label  string
	Values []int
}

// HeatMap draws a grid of cells, darker for more.
type HeatMap struct {
	ID, Title, Desc string
	Rows, Cols      []string
	Values          [][]int
}

// Geometry shared by the line and bar charts, in pixels: the plot's top, its height, the
// chart's height (the x labels below the plot).
const (
	plotTop    = 18
	plotHeight = 150
	plotBottom = plotTop + plotHeight
	chartH     = plotBottom + 26
)

type gridLine struct {
	Y     string // px
	TextY string
	Label string
}

type axisLabel struct {
	X, Anchor, Text string
}

// niceMax rounds a chart's largest value up to four round steps (1, 2, 2.5, 3, 4, 5, 6, 8 times
// a power of ten), so that its four grid lines fall on round numbers.
func niceMax(v int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{10, 15, 20, 25, 30, 40, 50, 60, 80} {
			if step := m * p / 10; step > 0 && step*4 >= v {
				return step * 4
			}
		}
	}
}

func maxOf(series []Series) int {
	m := 0
	for _, s := range series {
		for _, v := range s.Values {
			m = max(m, v)
		}
	}
	return m
}

func px(f float64) string  { return strconv.FormatFloat(f, 'f', 1, 64) }
func pct(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) + "%" }

// grid is the four grid lines above the base line of a chart whose top value is top.
func grid(top int) []gridLine {
	out := make([]gridLine, 0, 5)
	for i := 0; i <= 4; i++ {
		y := plotBottom - float64(plotHeight)*float64(i)/4
		label := formatCount(top * i / 4)
		if i == 0 {
			label = "" // the base line is zero; a label there would sit on the lines
		}
		out = append(out, gridLine{Y: px(y), TextY: px(y - 4), Label: label})
	}
	return out
}

// formatCount writes a count with thousands separators: 12,345.
func formatCount(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + formatCount(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Grid is the line chart's grid lines.
func (c LineChart) Grid() []gridLine { return grid(niceMax(maxOf(c.Series))) }

// Points is a series' polyline in the plot's 1000 × 1000 box (a lone day is a level line).
func (c LineChart) Points(s Series) string {
	top := float64(niceMax(maxOf(c.Series)))
	n := len(s.Values)
	var b strings.Builder
	for i, v := range s.Values {
		x := 500.0
		if n > 1 {
			x = 1000 * float64(i) / float64(n-1)
		}
		y := 1000 - 1000*float64(v)/top
		if n == 1 {
			fmt.Fprintf(&b, "0,%.1f 1000,%.1f", y, y)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x, y)
	}
	return b.String()
}

// spread picks at most k of n indexes to label, evenly, the first and the last included.
func spread(n, k int) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, k)
	for j := range out {
		out[j] = j * (n - 1) / (k - 1)
	}
	return out
}

// XLabels are at most five labels spread under the line chart, the first and last included,
// held inside the picture.
func (c LineChart) XLabels() []axisLabel {
	n := len(c.Labels)
	if n == 1 {
		return []axisLabel{{X: "50%", Anchor: "middle", Text: c.Labels[0]}}
	}
	var out []axisLabel
	for _, i := range spread(n, 5) {
		out = append(out, axisLabel{X: pct(100 * float64(i) / float64(n-1)), Anchor: "middle", Text: c.Labels[i]})
	}
	if len(out) > 0 {
		out[0].Anchor, out[len(out)-1].Anchor = "start", "end"
	}
	return out
}

// PlotTop and friends place the nested plot of the line chart.
func (LineChart) PlotTop() string    { return strconv.Itoa(plotTop) }
func (LineChart) PlotHeight() string { return strconv.Itoa(plotHeight) }
func (LineChart) Height() string     { return strconv.Itoa(chartH) }
func (LineChart) LabelY() string     { return strconv.Itoa(chartH - 6) }

type bar struct {
	X, W, Y, H, Class, Tip string
}

// Grid is the bar chart's grid lines.
func (c BarChart) Grid() []gridLine { return grid(niceMax(maxOf(c.Series))) }

// Bars are the chart's bars, group by group.
func (c BarChart) Bars() []bar {
	top := float64(niceMax(maxOf(c.Series)))
	n, k := len(c.Labels), len(c.Series)
	if n == 0 || k == 0 {
		return nil
	}
	group := 100 / float64(n)
	w := group * 0.8 / float64(k)
	var out []bar
	for i := range c.Labels {
		for j, s := range c.Series {
			v := 0
			if i < len(s.Values) {
				v = s.Values[i]
			}
			h := float64(plotHeight) * float64(v) / top
			out = append(out, bar{X: pct(group*float64(i) + group*0.1 + w*float64(j)), W: pct(w * 0.92), Y: px(plotBottom - h),
				H: px(h), Class: "s" + strconv.Itoa(j), Tip: s.Name + ", " + c.Labels[i] + ": " + formatCount(v)})
		}
	}
	return out
}

// XLabels are the group labels, each under its group; with more than eight groups (days), five
// of them, the outer ones held inside the picture (a 390 px phone has room for five dates).
func (c BarChart) XLabels() []axisLabel {
	n := len(c.Labels)
	var out []axisLabel
	k := n
	if n > 8 {
		k = 5
	}
	for _, i := range spread(n, k) {
		l := axisLabel{X: pct(100 * (float64(i) + 0.5) / float64(n)), Anchor: "middle", Text: c.Labels[i]}
		if n > 8 && i == 0 {
			l.X, l.Anchor = "0", "start"
		} else if n > 8 && i == n-1 {
			l.X, l.Anchor = "100%", "end"
		}
		out = append(out, l)
	}
	return out
}

func (BarChart) Height() string { return strconv.Itoa(chartH) }
func (BarChart) LabelY() string { return strconv.Itoa(chartH - 6) }

// Geometry of the stacked bars, per row: its label, then its bar.
const (
	stackRow = 46
	stackBar = 18
)

type stackedRow struct {
	LabelY, BarY string
	Label        string
	Segments     []bar
}

// Layout is each row's label and segments, scaled to the row's own total (a bar is 100 %).
func (c StackedBars) Layout() []stackedRow {
	out := make([]stackedRow, 0, len(c.Rows))
	for i, r := range c.Rows {
		y := float64(i * stackRow)
		row := stackedRow{LabelY: px(y + 15), BarY: px(y + 22), Label: r.Label}
		total := 0
		for _, v := range r.Values {
			total += v
		}
		x := 0.0
		for j, v := range r.Values {
			if v == 0 || total == 0 {
				continue
			}
			w := 100 * float64(v) / float64(total)
			row.Segments = append(row.Segments, bar{X: pct(x), W: pct(w), Class: "p" + strconv.Itoa(j),
				Tip: c.Parts[j] + ": " + formatCount(v)})
			x += w
		}
		out = append(out, row)
	}
	return out
}

func (c StackedBars) Height() string  { return strconv.Itoa(max(len(c.Rows), 1) * stackRow) }
func (StackedBars) BarHeight() string { return strconv.Itoa(stackBar) }

// Geometry of the heat map: the row labels take the first 12 % of the width.
const (
	heatLabel = 12.0
	heatTop   = 20
	heatCell  = 24
)

type heatCellBox struct {
	X, W, Y, Class, Tip string
}

// Cells are the heat map's cells, coloured in five steps of the largest value (q0: none).
func (h HeatMap) Cells() []heatCellBox {
	top := 0
	for _, r := range h.Values {
		for _, v := range r {
			top = max(top, v)
		}
	}
	w := (100 - heatLabel) / float64(max(len(h.Cols), 1))
	var out []heatCellBox
	for i, r := range h.Values {
		for j, v := range r {
			q := 0
			if v > 0 {
				q = 1 + (v*4-1)/top // 1…4
			}
			out = append(out, heatCellBox{X: pct(heatLabel + w*float64(j)), W: pct(w * 0.9), Y: strconv.Itoa(heatTop + i*heatCell),
				Class: "q" + strconv.Itoa(q), Tip: h.Rows[i] + " " + h.Cols[j] + ": " + formatCount(v)})
		}
	}
	return out
}

// RowLabels are the rows' names at the left.
func (h HeatMap) RowLabels() []axisLabel {
	out := make([]axisLabel, len(h.Rows))
	for i, r := range h.Rows {
		out[i] = axisLabel{X: strconv.Itoa(heatTop + i*heatCell + 16), Text: r}
	}
	return out
}

// ColLabels name every third column above the grid.
func (h HeatMap) ColLabels() []axisLabel {
	w := (100 - heatLabel) / float64(max(len(h.Cols), 1))
	var out []axisLabel
	for j := 0; j < len(h.Cols); j += 3 {
		out = append(out, axisLabel{X: pct(heatLabel + w*float64(j)), Anchor: "start", Text: h.Cols[j]})
	}
	return out
}

func (h HeatMap) Height() string    { return strconv.Itoa(heatTop + len(h.Rows)*heatCell) }
func (HeatMap) CellHeight() string  { return strconv.Itoa(heatCell - 3) }
func seriesClass(i int) string      { return "s" + strconv.Itoa(i) }
func partClass(i int) string        { return "p" + strconv.Itoa(i) }
func labelledBy(id string) string   { return id + "-title " + id + "-desc" }
func chartPart(id, p string) string { return id + "-" + p }
