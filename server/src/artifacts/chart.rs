//! Chart blocks as inline SVG, drawn here (a few hundred lines: a plotting crate would bring
//! a font stack for what is axes, ticks, lines and a legend): x and y axes with "nice" ticks
//! (1, 2 or 5 times a power of ten) and their labels, a series per colour — bars grouped at
//! each x, a polyline with its points, or points alone — and a legend naming each series.
//! Each series is a `<g class="series" data-series="NAME">` with a `<title>`.

use std::fmt::Write as _;

use super::{escape, number, ChartKind, Series};

const W: f64 = 720.0;
const H: f64 = 380.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 20.0;
const BOTTOM: f64 = 56.0;

/// The series' colours, in order (then again).
pub const PALETTE: &[&str] = &["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#953800", "#6e7781"];

/// Ticks for `[lo, hi]`: about `n` round values covering it.
fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 1.0, hi + 1.0) };
    let raw = (hi - lo) / n as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).floor() * step;
    let mut out = Vec::new();
    let mut t = first;
    loop {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        if t >= hi - step * 1e-9 || out.len() >= 50 {
            return out;
        }
        t += step;
    }
}

/// Draws the chart into `out`.
pub fn render(kind: ChartKind, series: &[Series], x_label: Option<&str>, y_label: Option<&str>, out: &mut String) {
    let points = || series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in points() {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    // Bars: one band per distinct x; the y axis starts at 0.
    let mut xs: Vec<f64> = Vec::new();
    if kind == ChartKind::Bar {
        xs = points().map(|p| p[0]).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        y0 = y0.min(0.0);
        y1 = y1.max(0.0);
    }
    let yt = ticks(y0, y1, 5);
    let (ylo, yhi) = (yt[0].min(y0), yt[yt.len() - 1].max(y1));
    let xt = if kind == ChartKind::Bar { xs.clone() } else { ticks(x0, x1, 6) };
    let (xlo, xhi) =
        if kind == ChartKind::Bar { (0.0, xs.len() as f64) } else { (xt[0].min(x0), xt[xt.len() - 1].max(x1)) };
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let sy = |y: f64| TOP + ph - (y - ylo) / (yhi - ylo).max(f64::MIN_POSITIVE) * ph;
    let sx = |x: f64| LEFT + (x - xlo) / (xhi - xlo).max(f64::MIN_POSITIVE) * pw;
    let band = |x: f64| xs.iter().position(|v| *v == x).unwrap_or(0) as f64;
    let _ = write!(
        out,
        "<svg class=\"chart chart-{}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\">",
        match kind {
            ChartKind::Bar => "bar",
            ChartKind::Line => "line",
            ChartKind::Scatter => "scatter",
        }
    );
    // Grid and y ticks.
    out.push_str("<g class=\"axis y-axis\" font-size=\"12\" fill=\"#59636e\">");
    for t in &yt {
        let y = sy(*t);
        let _ = write!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#eaeef2\"/><line x1=\"{:.1}\" x2=\"{LEFT}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#59636e\"/><text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT + pw,
            LEFT - 5.0,
            LEFT - 8.0,
            y + 4.0,
            number(*t)
        );
    }
    out.push_str("</g><g class=\"axis x-axis\" font-size=\"12\" fill=\"#59636e\">");
    for t in &xt {
        let x = if kind == ChartKind::Bar { sx(band(*t) + 0.5) } else { sx(*t) };
        let _ = write!(
            out,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#59636e\"/><text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            TOP + ph,
            TOP + ph + 5.0,
            TOP + ph + 19.0,
            number(*t)
        );
    }
    out.push_str("</g>");
    // The axes.
    let _ = write!(
        out,
        "<line class=\"axis-line\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{:.1}\" stroke=\"#1f2328\"/><line class=\"axis-line\" x1=\"{LEFT}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#1f2328\"/>",
        TOP + ph,
        sy(ylo.max(0.0).min(yhi)),
        LEFT + pw,
        sy(ylo.max(0.0).min(yhi))
    );
    if let Some(l) = x_label {
        let _ = write!(
            out,
            "<text class=\"axis-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
            LEFT + pw / 2.0,
            H - 12.0,
            escape(l)
        );
    }
    if let Some(l) = y_label {
        let _ = write!(
            out,
            "<text class=\"axis-label\" transform=\"translate(16 {:.1}) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
            TOP + ph / 2.0,
            escape(l)
        );
    }
    // The series.
    let n = series.len() as f64;
    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let _ =
            write!(out, "<g class=\"series\" data-series=\"{}\"><title>{}</title>", escape(&s.name), escape(&s.name));
        match kind {
            ChartKind::Bar => {
                let slot = (sx(1.0) - sx(0.0)) * 0.8 / n;
                let base = sy(0.0f64.max(ylo).min(yhi));
                for p in &s.points {
                    let x = sx(band(p[0])) + (sx(1.0) - sx(0.0)) * 0.1 + slot * i as f64;
                    let y = sy(p[1]);
                    let _ = write!(
                        out,
                        "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{color}\"><title>{}: {}</title></rect>",
                        y.min(base),
                        (slot - 1.0).max(1.0),
                        (y - base).abs(),
                        escape(&s.name),
                        number(p[1])
                    );
                }
            }
            ChartKind::Line => {
                out.push_str("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"");
                out.push_str(color);
                out.push_str("\" points=\"");
                for p in &s.points {
                    let _ = write!(out, "{:.1},{:.1} ", sx(p[0]), sy(p[1]));
                }
                out.push_str("\"/>");
                for p in &s.points {
                    let _ =
                        write!(out, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"/>", sx(p[0]), sy(p[1]));
                }
            }
            ChartKind::Scatter => {
                for p in &s.points {
                    let _ = write!(
                        out,
                        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{color}\" fill-opacity=\"0.8\"/>",
                        sx(p[0]),
                        sy(p[1])
                    );
                }
            }
        }
        out.push_str("</g>");
    }
    // The legend.
    out.push_str("<g class=\"legend\" font-size=\"13\">");
    for (i, s) in series.iter().enumerate() {
        let y = TOP + 10.0 + i as f64 * 22.0;
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#1f2328\">{}</text>",
            W - RIGHT + 20.0,
            y - 11.0,
            PALETTE[i % PALETTE.len()],
            W - RIGHT + 40.0,
            y,
            escape(&s.name)
        );
    }
    out.push_str("</g></svg>");
}

#[cfg(test)]
mod tests {
    use super::ticks;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let t = ticks(3.0, 3.0, 5);
        assert!(t[0] < 3.0 && *t.last().unwrap() > 3.0, "{t:?}");
        let t = ticks(-0.37, 1.2, 5);
        assert!(t[0] <= -0.37 && *t.last().unwrap() >= 1.2, "{t:?}");
    }
}
