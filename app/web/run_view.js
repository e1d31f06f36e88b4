// perfsage run view: one analysed run as HTML — header, ranked findings with evidence and
// actions, the step breakdown (stacked SVG bars per step) and the Roofline (log-log SVG).
// Used by perfsaged's page and by `perfsage analyze --format html`, which embeds the data.
// Text from reports (finding messages come from packs, some of them community packs) is only
// ever set as text, never parsed as HTML.
"use strict";

// Script errors on the page are recorded on <html data-script-errors="..."> as well as in the
// console, so a headless browser's DOM dump shows them (tests/integration/report_browser_test).
function perfsageRecordError(message) {
  var root = document.documentElement, was = root.getAttribute("data-script-errors");
  root.setAttribute("data-script-errors", (was ? was + " | " : "") + message);
}
window.addEventListener("error", function (e) { perfsageRecordError(e.message || "error"); });
window.addEventListener("unhandledrejection", function (e) { perfsageRecordError(String(e.reason)); });

var PerfsageRunView = (function () {
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    setAll(e, attrs);
    append(e, children);
    return e;
  }
  function svg(tag, attrs, children) {
    var e = document.createElementNS(SVG, tag);
    setAll(e, attrs);
    append(e, children);
    return e;
  }
  function setAll(e, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      if (attrs[k] === undefined || attrs[k] === null) return;
      if (k === "text") e.textContent = String(attrs[k]);
      else e.setAttribute(k, String(attrs[k]));
    });
  }
  function append(e, children) {
    if (children === undefined || children === null) return;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
  }

  function fmtUs(us) {
    us = Number(us) || 0;
    if (us >= 1e6) return (us / 1e6).toFixed(2) + " s";
    if (us >= 1e3) return (us / 1e3).toFixed(2) + " ms";
    return us.toFixed(Math.abs(us) < 10 ? 2 : 1) + " µs";
  }
  function fmtPct(x) {
    return ((Number(x) || 0) * 100).toFixed(1) + " %";
  }
  function fmtSi(v) {
    v = Number(v) || 0;
    var units = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(v) >= units[i][0]) return (v / units[i][0]).toPrecision(3) + " " + units[i][1];
    }
    return v.toPrecision(3) + " ";
  }
  function severityName(s) {
    return String(s || "SEVERITY_UNSPECIFIED").replace("SEVERITY_", "").toLowerCase();
  }

  // ---- header and tables

  function header(data) {
    var report = data.report || {};
    var run = report.run || {};
    var base = report.base || {};
    var facts = [
      ["job", run.job],
      ["created", (data.summary || {}).created],
      ["framework", run.framework],
      ["device", [run.device, run.chip].filter(Boolean).join(" ")],
      ["ranks", run.ranks],
      ["steps", run.steps],
      ["step time", run.step_time_us ? fmtUs(run.step_time_us) : ""],
      ["summed device activity", run.device_time_us ? fmtUs(run.device_time_us) : ""],
      ["gains measured against", base.text]
    ].filter(function (f) { return f[1] !== undefined && f[1] !== "" && f[1] !== "0" && f[1] !== 0; });
    return el("section", { class: "run-header" }, [
      el("h2", { text: "Run " + (run.id || "") + (run.job ? " — " + run.job : "") }),
      el("dl", { class: "facts" }, facts.map(function (f) {
        return el("div", null, [el("dt", { text: f[0] }), el("dd", { text: f[1] })]);
      }))
    ]);
  }

  function evidenceTable(f) {
    // display is the value as the text report prints it ("34.7 %", "21.85 ms"), set by the report.
    var rows = (f.evidence || []).map(function (e) {
      var v = e.display || (e.text !== undefined ? e.text : String(e.number));
      return el("tr", null, [el("th", { text: e.name }), el("td", { class: e.number !== undefined ? "num" : null, text: v })]);
    });
    return rows.length ? el("table", { class: "evidence" }, el("tbody", null, rows)) : null;
  }

  function actionBlock(a) {
    if (!a || !a.kind) return null;
    var detail = a[a.kind] || {};
    var lines = [];
    Object.keys(detail).forEach(function (k) {
      var v = detail[k];
      // Unset fields print as their defaults (job_type 0: left to the planner): not shown.
      if (v === "" || v === false || v === 0 || (Array.isArray(v) && !v.length)) return;
      lines.push(k + ": " + (Array.isArray(v) ? v.join(", ") : v));
    });
    return el("div", { class: "action" }, [
      el("div", { class: "action-kind", text: "action: " + a.kind }),
      lines.length ? el("pre", { text: lines.join("\n") }) : null
    ]);
  }

  function findingsSection(report) {
    var findings = report.recommendations || [];
    var items = findings.map(function (f, i) {
      var sev = severityName(f.severity);
      return el("li", { class: "finding sev-" + sev, "data-finding-id": f.id }, [
        el("div", { class: "finding-head" }, [
          el("span", { class: "rank", text: String(i + 1) + "." }),
          el("span", { class: "badge sev-" + sev, text: sev.toUpperCase() }),
          el("span", { class: "title", text: f.title }),
          f.estimated_gain_share ? el("span", { class: "gain", text: "gain " + fmtPct(f.estimated_gain_share) + " (" + fmtUs(f.estimated_gain_us) + ")" }) : null
        ]),
        el("p", { class: "message", text: f.message }),
        el("div", { class: "meta", text: f.pack + "/" + f.rule + (f.subjects && f.subjects.length ? " · " + f.subjects.join(", ") : "") + " · id " + f.id }),
        evidenceTable(f),
        actionBlock(f.action)
      ]);
    });
    return el("section", { class: "findings" }, [
      el("h3", { text: "Findings (" + findings.length + ")" }),
      items.length ? el("ol", { class: "finding-list" }, items) : el("p", { class: "empty", text: "No findings." })
    ]);
  }

  // Applied actions of the job judged on this run (perfsage.v1.ActionVerdict, docs/actions.md).
  function fmtMetric(v, unit) {
    if (v === undefined || v === null) return "—";
    if (unit === "us" || String(unit).indexOf("us ") === 0) return fmtUs(v) + unit.slice(2);  // "us per step"
    return String(Number(Number(v).toPrecision(6))) + (unit ? " " + unit : "");
  }
  function fmtChange(v) {
    if (v.change === undefined || v.change === null) return "—";
    var c = Number(v.change);
    var text = (c > 0 ? "+" : "") + fmtMetric(c, v.unit);
    if (Number(v.before) > 0) text += " (" + (c > 0 ? "+" : "") + fmtPct(c / Number(v.before)) + ")";
    return text;
  }
  function verdictsSection(report) {
    var verdicts = report.action_verdicts || [];
    if (!verdicts.length) return null;
    var rows = verdicts.map(function (v) {
      var band = v.noise === undefined || v.noise === null ? "unknown" : "± " + fmtMetric(v.noise, v.unit);
      return el("tr", { class: "verdict-row", "data-apply-id": v.apply_id, "data-finding-id": v.finding }, [
        el("td", { class: "num", text: v.apply_id }),
        el("td", { text: v.finding }),
        el("td", { text: v.metric }),
        el("td", { class: "num before", text: fmtMetric(v.before, v.unit) }),
        el("td", { class: "num after", text: fmtMetric(v.after, v.unit) }),
        el("td", { class: "num change", text: fmtChange(v) }),
        el("td", { class: "num band", text: band }),
        el("td", { class: "verdict verdict-" + v.verdict, text: v.verdict }),
        el("td", { class: "detail", text: v.detail })
      ]);
    });
    return el("section", { class: "verdicts" }, [
      el("h3", { text: "Applied actions judged on this run (" + verdicts.length + ")" }),
      el("table", { class: "grid" }, [
        el("thead", null, el("tr", null, ["apply", "finding", "metric", "before", "after", "change", "noise band", "verdict", "what was compared"].map(function (h) { return el("th", { text: h }); }))),
        el("tbody", null, rows)
      ])
    ]);
  }

  function ingestSection(report) {
    var rows = (report.ingest || []).map(function (f) {
      return el("tr", null, [
        el("td", { text: f.path }), el("td", { text: f.collector }),
        el("td", { class: "num", text: f.records }), el("td", { class: "num", text: f.skipped })
      ]);
    });
    var packs = (report.packs || []).map(function (p) {
      return el("tr", null, [
        el("td", { text: p.name + " " + (p.version || "") }), el("td", { text: p.status }),
        el("td", { class: "num", text: p.fired }), el("td", { text: p.error || "" })
      ]);
    });
    return el("section", { class: "ingest" }, [
      el("h3", { text: "Inputs" }),
      el("table", { class: "grid" }, [
        el("thead", null, el("tr", null, ["file", "collector", "records", "skipped"].map(function (h) { return el("th", { text: h }); }))),
        el("tbody", null, rows)
      ]),
      el("h3", { text: "Packs" }),
      el("table", { class: "grid" }, [
        el("thead", null, el("tr", null, ["pack", "status", "fired", "error"].map(function (h) { return el("th", { text: h }); }))),
        el("tbody", null, packs)
      ])
    ]);
  }

  // ---- axes: round ticks (1, 2 or 5 × 10^n) in a unit chosen for the range

  function niceStep(range, intervals) {
    var raw = range / intervals, p = Math.pow(10, Math.floor(log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }
  // Ticks 0, step, 2 step, ... up to the first at or above max, labelled in µs, ms or s.
  function timeTicks(maxUs) {
    var step = niceStep(maxUs, 5), top = Math.ceil(maxUs / step - 1e-9) * step;
    var unit = top >= 1e6 ? [1e6, "s"] : top >= 1e3 ? [1e3, "ms"] : [1, "µs"];
    var decimals = Math.max(0, -Math.floor(log10(step / unit[0]) + 1e-9));
    var ticks = [];
    for (var v = 0; v <= top + step / 2; v += step) {
      ticks.push({ value: v, label: v === 0 ? "0" : (v / unit[0]).toFixed(decimals) + " " + unit[1] });
    }
    return { top: top, ticks: ticks };
  }
  // A power of ten with an SI prefix: 1e14 -> "100 T", 0.01 -> "0.01".
  function fmtDecade(d) {
    var prefixes = { 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E" };
    if (d < 0) return Math.pow(10, d).toFixed(-d);
    if (d < 3) return String(Math.pow(10, d));
    var p = Math.min(18, d - d % 3);
    return String(Math.pow(10, d - p)) + " " + prefixes[p];
  }

  // ---- step breakdown: a chart per step source, one stacked bar per step (and rank), or per
  // group of consecutive steps in a long run (mean parts, whisker from shortest to longest)

  var SEGMENT_COLORS = {
    "computing": "#4e79a7",
    "communication (not overlapped)": "#e15759",
    "free": "#bab0ac",
    "other": "#f28e2b",
    "whole step": "#76b7b2"
  };

  function barLabel(b, multiRank) {
    var steps = Number(b.steps) > 1 ? "s" + b.step + "–" + b.last_step : "s" + b.step;
    return (multiRank ? "r" + b.rank + " " : "") + steps;
  }

  function stepChart(chart) {
    var bars = chart.bars || [];
    var W = 760, H = 300, L = 70, R = 10, T = 12, B = 62;
    var max = 0;
    bars.forEach(function (b) { max = Math.max(max, Number(b.total_us) || 0, Number(b.max_total_us) || 0); });
    if (!bars.length || max <= 0) return null;
    var axis = timeTicks(max);
    var plotW = W - L - R, plotH = H - T - B;
    var slot = plotW / bars.length, barW = Math.max(1, Math.min(40, slot * 0.7));
    var multiRank = Number(chart.ranks) > 1;
    var grouped = Number(chart.steps_per_bar) > 1;
    function Y(us) { return T + plotH - plotH * us / axis.top; }
    var out = svg("svg", { class: "chart step-chart", "data-source": chart.source, viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "step breakdown from " + chart.title });
    axis.ticks.forEach(function (t) {
      out.appendChild(svg("line", { x1: L, x2: W - R, y1: Y(t.value), y2: Y(t.value), class: "grid-line" }));
      out.appendChild(svg("text", { x: L - 6, y: Y(t.value) + 4, "text-anchor": "end", class: "tick", text: t.label }));
    });
    // As many x labels as fit side by side.
    var longest = 0;
    bars.forEach(function (b) { longest = Math.max(longest, barLabel(b, multiRank).length); });
    var labelEvery = Math.max(1, Math.ceil(bars.length / Math.floor(plotW / (longest * 6.5 + 10))));
    bars.forEach(function (b, i) {
      var x = L + i * slot + (slot - barW) / 2, y = T + plotH;
      var what = (multiRank ? "rank " + b.rank + " " : "") + (grouped ? "steps " + b.step + "–" + b.last_step + " (mean of " + b.steps + ")" : "step " + b.step);
      var g = svg("g", { class: "bar", "data-step": b.step, "data-rank": b.rank, "data-steps": b.steps });
      (b.segments || []).forEach(function (seg) {
        var h = plotH * (Number(seg.us) || 0) / axis.top;
        y -= h;
        g.appendChild(svg("rect", {
          class: "seg", x: x.toFixed(1), y: y.toFixed(1), width: barW.toFixed(1), height: Math.max(0, h).toFixed(1),
          fill: SEGMENT_COLORS[seg.name] || "#59a14f", "data-segment": seg.name
        }, svg("title", { text: what + ": " + seg.name + " " + fmtUs(seg.us) })));
      });
      if (grouped && Number(b.max_total_us) > Number(b.min_total_us)) {
        var cx = (x + barW / 2).toFixed(1);
        g.appendChild(svg("line", { class: "range", x1: cx, x2: cx, y1: Y(b.min_total_us).toFixed(1), y2: Y(b.max_total_us).toFixed(1) },
          svg("title", { text: what + ": " + fmtUs(b.min_total_us) + " to " + fmtUs(b.max_total_us) })));
      }
      out.appendChild(g);
      if (i % labelEvery === 0) {
        out.appendChild(svg("text", { x: (x + barW / 2).toFixed(1), y: H - B + 16, "text-anchor": "middle", class: "tick", text: barLabel(b, multiRank) }));
      }
    });
    var names = [];
    bars.forEach(function (b) { (b.segments || []).forEach(function (g) { if (names.indexOf(g.name) < 0) names.push(g.name); }); });
    if (grouped) names.push("range");
    var lx = L;
    names.forEach(function (n) {
      if (n === "range") out.appendChild(svg("line", { class: "range", x1: lx + 5, x2: lx + 5, y1: H - 20, y2: H - 8 }));
      else out.appendChild(svg("rect", { x: lx, y: H - 18, width: 10, height: 10, fill: SEGMENT_COLORS[n] || "#59a14f" }));
      out.appendChild(svg("text", { x: lx + 14, y: H - 9, class: "legend", text: n === "range" ? "shortest to longest step" : n }));
      lx += 24 + (n === "range" ? 24 : n.length) * 6.5;
    });
    return out;
  }

  function stepFigure(chart) {
    var drawn = stepChart(chart);
    var facts = [Number(chart.ranks) === 1 ? "1 rank" : chart.ranks + " ranks", Number(chart.steps) === 1 ? "1 step" : chart.steps + " steps"];
    if (!chart.breakdown) facts.push("step times only, no breakdown");
    return el("figure", { class: "step-figure", "data-source": chart.source }, [
      el("figcaption", null, [el("span", { class: "source-label", text: "Source: " }), el("span", { class: "source", text: chart.title }), " (" + facts.join(", ") + ")"]),
      drawn || el("p", { class: "empty", text: "Every step of this source lasts 0 µs." }),
      chart.note ? el("p", { class: "chart-note", text: chart.note }) : null
    ]);
  }

  // ---- Roofline: log-log, roofs min(peak, bandwidth × intensity), one point per op

  var BOUND_COLORS = { compute: "#e15759", memory: "#4e79a7", latency: "#f28e2b" };

  function log10(x) { return Math.log(x) / Math.LN10; }

  // Drawn only with points: roofs alone would be an empty chart (the note says why).
  function rooflineChart(roofline) {
    var points = (roofline && roofline.points) || [];
    if (!points.length) return null;
    // Precisions with the same peak share one roof line ("fp16/bf16").
    var roofs = [];
    ((roofline && roofline.roofs) || []).forEach(function (r) {
      var same = roofs.filter(function (o) { return o.peak_flops === r.peak_flops && o.bandwidth === r.bandwidth; })[0];
      if (same) same.precision += "/" + r.precision;
      else roofs.push({ precision: r.precision, peak_flops: r.peak_flops, bandwidth: r.bandwidth });
    });
    var W = 760, H = 380, L = 80, R = 20, T = 20, B = 50;
    var xs = [], ys = [];
    points.forEach(function (p) { xs.push(Number(p.intensity)); ys.push(Number(p.achieved)); });
    roofs.forEach(function (r) {
      if (r.bandwidth > 0) xs.push(r.peak_flops / r.bandwidth);
      ys.push(Number(r.peak_flops));
    });
    xs = xs.filter(function (v) { return v > 0 && isFinite(v); });
    ys = ys.filter(function (v) { return v > 0 && isFinite(v); });
    if (!xs.length || !ys.length) return null;
    var x0 = Math.floor(log10(Math.min.apply(null, xs))) - 1, x1 = Math.ceil(log10(Math.max.apply(null, xs))) + 1;
    var y0 = Math.floor(log10(Math.min.apply(null, ys))) - 1, y1 = Math.ceil(log10(Math.max.apply(null, ys))) + 0.3;
    var plotW = W - L - R, plotH = H - T - B;
    function X(v) { return L + plotW * (log10(v) - x0) / (x1 - x0); }
    function Y(v) { return T + plotH - plotH * (log10(v) - y0) / (y1 - y0); }
    var chart = svg("svg", { class: "chart roofline-chart", viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "roofline" });
    for (var d = x0; d <= x1; d++) {
      chart.appendChild(svg("line", { x1: X(Math.pow(10, d)), x2: X(Math.pow(10, d)), y1: T, y2: T + plotH, class: "grid-line" }));
      chart.appendChild(svg("text", { x: X(Math.pow(10, d)), y: H - B + 16, "text-anchor": "middle", class: "tick", text: fmtDecade(d) }));
    }
    for (var e = y0; e <= Math.floor(y1); e++) {
      chart.appendChild(svg("line", { x1: L, x2: W - R, y1: Y(Math.pow(10, e)), y2: Y(Math.pow(10, e)), class: "grid-line" }));
      chart.appendChild(svg("text", { x: L - 6, y: Y(Math.pow(10, e)) + 4, "text-anchor": "end", class: "tick", text: fmtDecade(e) + "FLOP/s" }));
    }
    chart.appendChild(svg("text", { x: L + plotW / 2, y: H - 12, "text-anchor": "middle", class: "axis-label", text: "arithmetic intensity (FLOP/byte)" }));
    var xmin = Math.pow(10, x0), xmax = Math.pow(10, x1);
    roofs.forEach(function (r, i) {
      var bw = Number(r.bandwidth), peak = Number(r.peak_flops);
      var ridge = bw > 0 ? peak / bw : xmin;
      var pts = bw > 0 ? [[xmin, Math.max(bw * xmin, Math.pow(10, y0))], [ridge, peak], [xmax, peak]] : [[xmin, peak], [xmax, peak]];
      chart.appendChild(svg("polyline", {
        class: "roof", "data-precision": r.precision, fill: "none", stroke: "#555", "stroke-dasharray": i ? "4 3" : "",
        points: pts.map(function (p) { return X(p[0]).toFixed(1) + "," + Y(Math.max(p[1], Math.pow(10, y0))).toFixed(1); }).join(" ")
      }, svg("title", { text: r.precision + " roof: " + fmtSi(peak) + "FLOP/s, " + fmtSi(bw) + "B/s" })));
      chart.appendChild(svg("text", { x: W - R - 4, y: Y(peak) - 4, "text-anchor": "end", class: "roof-label", text: r.precision }));
    });
    var maxShare = 0;
    points.forEach(function (p) { maxShare = Math.max(maxShare, Number(p.share) || 0); });
    points.forEach(function (p) {
      var rad = 3 + 9 * Math.sqrt((Number(p.share) || 0) / (maxShare || 1));
      chart.appendChild(svg("circle", {
        class: "point", cx: X(p.intensity).toFixed(1), cy: Y(p.achieved).toFixed(1), r: rad.toFixed(1),
        fill: BOUND_COLORS[p.bound] || "#59a14f", "fill-opacity": 0.75, "data-name": p.name
      }, svg("title", { text: p.name + " (" + p.type + "): " + Number(p.intensity).toPrecision(3) + " FLOP/B, " + fmtSi(p.achieved) + "FLOP/s, " + fmtUs(p.total_us) + " (" + fmtPct(p.share) + "), " + p.bound })));
    });
    return chart;
  }

  function chartsSection(charts) {
    charts = charts || {};
    var stepCharts = charts.step_charts || [];
    var roofline = charts.roofline || {};
    var roof = rooflineChart(roofline);
    return el("section", { class: "charts" }, [el("h3", { text: "Step breakdown" })].concat(
      stepCharts.length ? stepCharts.map(stepFigure) : [el("p", { class: "empty", text: "The run recorded no steps." })], [
      el("h3", { text: "Roofline" + (roofline.hardware ? " — " + roofline.hardware : "") }),
      roof,
      roofline.note ? el("p", { class: roof ? "chart-note" : "chart-note empty", text: roofline.note }) : null,
      !roof && !roofline.note ? el("p", { class: "empty", text: "No op has both FLOPs and bytes." }) : null
    ]));
  }

  // data: {summary, report, charts} — a perfsage.v1.RunDetail as JSON.
  function render(container, data) {
    container.textContent = "";
    var report = data.report || {};
    append(container, [header(data), findingsSection(report), verdictsSection(report), chartsSection(data.charts), ingestSection(report)]);
    container.setAttribute("data-rendered", "run");
  }

  return { render: render, el: el, svg: svg, fmtUs: fmtUs, fmtPct: fmtPct, severityName: severityName };
})();
