// perfsaged's page: runs (with filters), a run (PerfsageRunView), a job's history, the queue
// and the packs, all from the JSON API. With a token configured the API answers 401 until the
// token is given; it is kept for the tab's session only.
"use strict";

(function () {
  var V = PerfsageRunView, el = V.el, svg = V.svg;
  var app = document.getElementById("app");

  function api(path, opts) {
    opts = opts || {};
    var headers = opts.headers || {};
    var token = sessionStorage.getItem("perfsage-token");
    if (token) headers["Authorization"] = "Bearer " + token;
    opts.headers = headers;
    return fetch("/api/v1" + path, opts).then(function (r) {
      return r.json().then(function (body) {
        if (r.status === 401) throw { unauthorized: true, message: body.message };
        if (!r.ok) throw { message: body.message || ("HTTP " + r.status) };
        return body;
      });
    });
  }

  function show(children) {
    app.textContent = "";
    (Array.isArray(children) ? children : [children]).forEach(function (c) { if (c) app.appendChild(c); });
  }

  function failed(err) {
    if (err && err.unauthorized) {
      var input = el("input", { type: "password", placeholder: "bearer token", size: 40 });
      var form = el("form", { class: "filters" }, [input, el("button", { type: "submit", text: "Use token" })]);
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        sessionStorage.setItem("perfsage-token", input.value);
        route();
      });
      show([el("p", { class: "error", text: err.message || "This daemon needs a token." }), form]);
      return;
    }
    show(el("p", { class: "error", text: (err && err.message) || String(err) }));
  }

  function link(href, text) { return el("a", { href: href, text: text }); }
  function table(head, rows) {
    return el("table", { class: "grid" }, [
      el("thead", null, el("tr", null, head.map(function (h) { return el("th", { text: h }); }))),
      el("tbody", null, rows)
    ]);
  }
  function td(text, cls) { return el("td", { text: text === undefined ? "" : text, class: cls }); }
  function query(params) {
    var q = Object.keys(params).filter(function (k) { return params[k]; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); });
    return q.length ? "?" + q.join("&") : "";
  }
  function hashParams() {
    var h = location.hash, i = h.indexOf("?"), out = {};
    if (i < 0) return out;
    h.slice(i + 1).split("&").forEach(function (kv) {
      var p = kv.split("=");
      if (p[0]) out[decodeURIComponent(p[0])] = decodeURIComponent(p[1] || "");
    });
    return out;
  }
  function severityCounts(by) {
    return ["critical", "high", "medium", "low", "info"].filter(function (s) { return by && by[s]; })
      .map(function (s) { return by[s] + " " + s; }).join(", ");
  }

  // ---- runs list with filters

  function runsPage() {
    var p = hashParams();
    var inputs = {
      job: el("input", { name: "job", placeholder: "job", value: p.job || "" }),
      status: el("input", { name: "status", placeholder: "status", value: p.status || "", size: 10 }),
      since: el("input", { name: "since", placeholder: "since 2026-01-01", value: p.since || "", size: 16 }),
      until: el("input", { name: "until", placeholder: "until", value: p.until || "", size: 16 })
    };
    var form = el("form", { class: "filters", id: "run-filters" }, [inputs.job, inputs.status, inputs.since, inputs.until,
      el("button", { type: "submit", text: "Filter" })]);
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var f = {};
      Object.keys(inputs).forEach(function (k) { f[k] = inputs[k].value.trim(); });
      location.hash = "#/runs" + query(f);
    });
    api("/runs" + query({ job: p.job, status: p.status, since: p.since, until: p.until, limit: 50, page_token: p.page_token }))
      .then(function (body) {
        var runs = body.runs || [];
        // A run a job analyses now: its stage and how far it is (its findings come when done).
        var runStatus = function (r) {
          if (r.status !== "running") return r.status;
          var pct = r.progress >= 0 ? " " + Math.round(r.progress * 100) + " %" : "";
          return "running: " + (r.stage || "starting") + pct;
        };
        var rows = runs.map(function (r) {
          return el("tr", { class: "run-row", "data-run-id": r.id }, [
            el("td", null, link("#/run/" + r.id, r.id)),
            el("td", null, link("#/job/" + encodeURIComponent(r.job), r.job)),
            td(r.created), td(runStatus(r)),
            td([r.device, r.chip].filter(Boolean).join(" ")),
            td(r.step_time_us ? V.fmtUs(r.step_time_us) : "", "num"),
            td(r.findings, "num"), td(severityCounts(r.findings_by_severity)),
            td(r.top_gain_share ? V.fmtPct(r.top_gain_share) : "", "num")
          ]);
        });
        var more = body.next_page_token ? link("#/runs" + query({ job: p.job, status: p.status, since: p.since, until: p.until, page_token: body.next_page_token }), "older runs →") : null;
        show([el("h2", { text: "Runs" }), form,
          runs.length ? table(["run", "job", "created", "status", "device", "step time", "findings", "by severity", "top gain"], rows)
            : el("p", { class: "empty", text: "No runs match." }), more]);
      }).catch(failed);
  }

  // ---- one run

  function runPage(id) {
    api("/runs/" + encodeURIComponent(id)).then(function (detail) {
      var box = el("div", { id: "run-view" });
      V.render(box, detail);
      var job = (detail.summary || {}).job;
      var tools = el("p", { class: "filters" }, [
        job ? link("#/job/" + encodeURIComponent(job), "history of " + job) : null,
        el("a", { href: "#", id: "report-link", text: "download as HTML" })
      ]);
      tools.querySelector("#report-link").addEventListener("click", function (ev) {
        ev.preventDefault();
        api_download("/runs/" + encodeURIComponent(id) + "/report.html", "perfsage-run-" + id + ".html");
      });
      show([tools, box]);
    }).catch(failed);
  }

  function api_download(path, name) {
    var token = sessionStorage.getItem("perfsage-token");
    fetch("/api/v1" + path, { headers: token ? { Authorization: "Bearer " + token } : {} })
      .then(function (r) { return r.blob(); })
      .then(function (b) {
        var a = el("a", { href: URL.createObjectURL(b), download: name });
        document.body.appendChild(a);
        a.click();
        a.remove();
      });
  }

  // ---- jobs and a job's history

  function jobsPage() {
    api("/jobs").then(function (body) {
      var rows = (body.jobs || []).map(function (j) {
        return el("tr", null, [el("td", null, link("#/job/" + encodeURIComponent(j.name), j.name)), td(j.runs, "num"), td(j.last_run)]);
      });
      show([el("h2", { text: "Jobs" }), rows.length ? table(["job", "runs", "last run"], rows) : el("p", { class: "empty", text: "No runs yet." })]);
    }).catch(failed);
  }

  function sparkline(gains, runIds) {
    var W = 160, H = 28, n = runIds.length;
    var line = svg("svg", { class: "spark", width: W, height: H, viewBox: "0 0 " + W + " " + H });
    var max = 0;
    gains.forEach(function (g) { max = Math.max(max, Number(g.gain_share) || 0); });
    gains.forEach(function (g) {
      var i = runIds.indexOf(String(g.run_id));
      var x = n > 1 ? 4 + (W - 8) * i / (n - 1) : W / 2;
      var y = H - 4 - (H - 8) * ((Number(g.gain_share) || 0) / (max || 1));
      line.appendChild(svg("circle", { class: "gain-point", cx: x.toFixed(1), cy: y.toFixed(1), r: 2.5, fill: "#e15759" },
        svg("title", { text: "run " + g.run_id + ": " + V.fmtPct(g.gain_share) })));
    });
    return line;
  }

  function jobPage(job) {
    api("/jobs/" + encodeURIComponent(job) + "/history").then(function (h) {
      var runIds = (h.runs || []).map(function (r) { return String(r.id); });
      var runRows = (h.runs || []).map(function (r, i) {
        // Each run against the one before it: the comparison page (step time, ops, findings).
        var prev = i > 0 ? h.runs[i - 1].id : null;
        var cmp = prev ? el("a", { class: "compare-link", href: "#/compare/" + prev + "/" + r.id, text: "vs run " + prev }) : null;
        return el("tr", null, [el("td", null, link("#/run/" + r.id, r.id)), td(r.created), td(r.step_time_us ? V.fmtUs(r.step_time_us) : "", "num"), td(r.findings, "num"), el("td", null, cmp)]);
      });
      var fRows = (h.findings || []).map(function (f) {
        return el("tr", { class: "history-row", "data-finding-id": f.id }, [
          el("td", null, el("span", { class: "badge sev-" + V.severityName(f.severity), text: V.severityName(f.severity) })),
          td(f.title), td(f.pack + "/" + f.rule),
          el("td", null, link("#/run/" + f.first_seen_run, "run " + f.first_seen_run)),
          el("td", null, link("#/run/" + f.last_seen_run, "run " + f.last_seen_run)),
          td(f.runs_seen, "num"), el("td", { class: "trend-" + f.trend, text: f.trend }),
          el("td", null, sparkline(f.gains || [], runIds))
        ]);
      });
      show([el("h2", { text: "Job " + h.job }),
        el("h3", { text: "Runs" }), table(["run", "created", "step time", "findings", "changes"], runRows),
        el("h3", { text: "Findings across runs" }),
        fRows.length ? table(["severity", "finding", "rule", "first seen", "last seen", "runs", "trend", "gain share by run"], fRows)
          : el("p", { class: "empty", text: "No findings in these runs." })]);
    }).catch(failed);
  }

  // ---- queue and packs

  function queuePage() {
    api("/queue?limit=100").then(function (q) {
      var counts = Object.keys(q.counts || {}).map(function (k) { return k + " " + q.counts[k]; }).join(" · ");
      var rows = (q.jobs || []).map(function (j) {
        // A cluster run fanned out by rank: its rank jobs and their reduce (docs/scale-out.md).
        var kind = j.kind === "rank" ? " · rank " + j.rank + " of job " + j.parent : j.kind === "reduce" ? " · reduce of its ranks" : "";
        return el("tr", null, [td(j.id), td(j.job + kind), el("td", { class: "state-" + j.state, text: j.state + (j.stage ? " (" + j.stage + ")" : "") }),
          td((j.inputs || []).join(" ")), td(j.attempts, "num"), td(j.reason),
          el("td", null, j.run_id && j.run_id !== "0" ? link("#/run/" + j.run_id, "run " + j.run_id) : null), td(j.submitted)]);
      });
      var pending = (q.pending || []).map(function (p) { return el("tr", null, [td(p.path), td(p.job), td(p.waiting_for)]); });
      show([el("h2", { text: "Queue" }), el("p", { text: counts }),
        rows.length ? table(["job id", "job", "state", "inputs", "attempts", "reason", "run", "submitted"], rows) : el("p", { class: "empty", text: "The queue is empty." }),
        el("h3", { text: "Runs being written" }),
        pending.length ? table(["run", "job", "waiting for"], pending) : el("p", { class: "empty", text: "None." })]);
    }).catch(failed);
  }

  function packsPage() {
    api("/packs").then(function (p) {
      var r = p.last_reload || {};
      var rows = (p.packs || []).map(function (k) {
        return el("tr", null, [td(k.name), td(k.version), td(k.status), td(k.source), td(k.rules, "num"), td(k.error)]);
      });
      show([el("h2", { text: "Packs (generation " + p.generation + ")" }),
        el("p", { class: r.ok ? "" : "error", text: "Last reload " + (r.time || "") + " (" + (r.trigger || "") + "): " + (r.ok ? "ok" : "failed — " + r.error) }),
        table(["pack", "version", "status", "source", "rules", "error"], rows)]);
    }).catch(failed);
  }

  // Two runs side by side: the daemon's comparison page (server-escaped, no script) parsed inert
  // and its content shown here, fetched with the token like every API call.
  function comparePage(a, b) {
    var token = sessionStorage.getItem("perfsage-token");
    fetch("/api/v1/compare.html?a=" + a + "&b=" + b, { headers: token ? { Authorization: "Bearer " + token } : {} })
      .then(function (r) {
        if (r.ok) return r.text();
        return r.json().then(function (body) {
          throw { unauthorized: r.status === 401, message: body.message || ("HTTP " + r.status) };
        });
      })
      .then(function (html) {
        var main = new DOMParser().parseFromString(html, "text/html").querySelector("main");
        var box = el("div", { id: "comparison" }, Array.prototype.slice.call(main.childNodes).map(function (n) { return document.importNode(n, true); }));
        show([el("p", { class: "filters" }, [link("#/run/" + a, "run " + a), link("#/run/" + b, "run " + b)]), box]);
      }).catch(failed);
  }

  function route() {
    var h = location.hash.replace(/\?.*$/, "") || "#/runs";
    var m;
    if ((m = h.match(/^#\/run\/(\d+)$/))) return runPage(m[1]);
    if ((m = h.match(/^#\/job\/(.+)$/))) return jobPage(decodeURIComponent(m[1]));
    if ((m = h.match(/^#\/compare\/(\d+)\/(\d+)$/))) return comparePage(m[1], m[2]);
    if (h === "#/jobs") return jobsPage();
    if (h === "#/queue") return queuePage();
    if (h === "#/packs") return packsPage();
    return runsPage();
  }

  window.addEventListener("hashchange", route);
  route();
})();
