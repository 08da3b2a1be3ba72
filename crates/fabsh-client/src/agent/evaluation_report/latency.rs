//! The latency histogram of the run.

use fabsh_model::agent::evaluation::EvaluationRun;
use std::fmt::Write;

/// The run's latencies as a histogram of up to ten equal bins.
pub(super) fn latency_section(run: &EvaluationRun) -> String {
    let latencies: Vec<f64> = run
        .rows
        .iter()
        .filter_map(|row| row.latency_ms)
        .map(|ms| ms as f64)
        .collect();
    let mut out = String::from("<section><h2>Latency of this run</h2>");
    if latencies.is_empty() {
        out.push_str("<p class=\"muted\">No latencies recorded.</p></section>");
        return out;
    }
    let low = latencies.iter().copied().fold(f64::INFINITY, f64::min);
    let high = latencies.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let bins = if high > low { 10 } else { 1 };
    let step = ((high - low) / bins as f64).max(1.0);
    let mut counts = vec![0usize; bins];
    for latency in &latencies {
        let bin = (((latency - low) / step) as usize).min(bins - 1);
        counts[bin] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(1).max(1);
    // Narrow, so that its labels stay readable when a phone shrinks it to the page.
    let (width, height, left, bottom, top) = (480.0, 200.0, 36.0, 40.0, 14.0);
    let plot_h = height - top - bottom;
    let bar_w = (width - left - 8.0) / bins as f64;
    let _ = write!(
        out,
        "<svg class=\"histogram\" viewBox=\"0 0 {width} {height}\" role=\"img\" \
         aria-label=\"Latency histogram of {} runs\" font-size=\"12\">\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{most}</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">0</text>",
        latencies.len(),
        left - 6.0,
        top + 8.0,
        left - 6.0,
        top + plot_h,
    );
    for (i, count) in counts.iter().enumerate() {
        let h = plot_h * *count as f64 / most as f64;
        let x = left + bar_w * i as f64;
        let from = low + step * i as f64;
        let _ = write!(
            out,
            "<g class=\"bar\" data-count=\"{count}\"><title>{from:.0}–{:.0} ms: {count}</title>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#2d6cdf\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#333\">{}</text></g>",
            from + step,
            x + 1.0,
            top + plot_h - h,
            bar_w - 2.0,
            x + bar_w / 2.0,
            top + plot_h - h - 3.0,
            // An empty bin shows no count: a lone 0 would read as an axis label.
            if *count == 0 {
                String::new()
            } else {
                count.to_string()
            },
        );
    }
    let _ = write!(
        out,
        "<text x=\"{left}\" y=\"{}\" fill=\"#555\">{low:.0} ms</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{:.0} ms</text></svg></section>",
        height - 18.0,
        width - 8.0,
        height - 18.0,
        low + step * bins as f64,
    );
    out
}
