// statebox report: draws the charts and the trial browser from the embedded JSON.
// Record text is only ever inserted with textContent.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var S = DATA.summary;
  var ENTRIES = Object.keys(S.agents);
  var METRICS = ["pass_at_1", "pass_at_k", "pass_hat_k_unbiased", "pass_hat_k_plugin",
    "observed_k_of_k", "retention"];
  var PLOT_CONFIG = { displaylogo: false, responsive: true };
  var PLOTS = [];

  function el(tag, attrs) {
    var node = document.createElement(tag);
    var a = attrs || {};
    Object.keys(a).forEach(function (k) {
      if (k === "text") { node.textContent = a[k]; }
      else if (k === "cls") { node.className = a[k]; }
      else { node.setAttribute(k, a[k]); }
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) { continue; }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  function fmt(v) { return v === null || v === undefined ? "— (undefined)" : (typeof v === "number" ? v.toFixed(3) : String(v)); }
  function usd(v) { return v === null || v === undefined ? "undefined" : "$" + v.toFixed(4); }
  function label(key, s) {
    var n = s.overall.unequal_trials ? "n" : String(s.k);
    return DATA.labels[key].split("{k}").join(String(s.k)).split("{n}").join(n);
  }
  function ciOf(s, key, domain) {
    var c = s.ci || {};
    var group = domain === undefined ? c.overall : (c.by_domain || {})[domain];
    return group ? group[key] : null;
  }
  function cell(v, ci) {
    var td = el("td", {}, fmt(v));
    if (ci) { td.appendChild(el("div", { cls: "ci", text: "[" + ci[0].toFixed(3) + ", " + ci[1].toFixed(3) + "]" })); }
    return td;
  }
  function table(head, rows) {
    var t = el("table");
    var tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", { text: h })); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) { row.appendChild(c instanceof Node ? c : el("td", { text: String(c) })); });
      t.appendChild(row);
    });
    return t;
  }

  // ---- header and summary -------------------------------------------------------------
  document.getElementById("title").textContent = DATA.title;
  document.getElementById("meta").textContent = S.campaigns.map(function (c) {
    return c.label + " (" + c.entries.join(", ") + ")";
  }).join(" · ") + " — generated " + DATA.generated_at;
  document.getElementById("bootstrap-note").textContent = "Intervals: " + S.bootstrap +
    ". System errors and unjudged rubric questions count as failed trials; the figures " +
    "excluding them are shown beside, named.";

  var summaryDiv = document.getElementById("summary-tables");
  var first = S.agents[ENTRIES[0]];
  summaryDiv.appendChild(table(
    ["entry", "tasks", "trials"].concat(METRICS.map(function (key) { return label(key, first); }), ["cost per success", "cost per dependable task"]),
    ENTRIES.map(function (name) {
      var s = S.agents[name];
      return [name, s.tasks, s.trials].concat(METRICS.map(function (key) { return cell(s.overall[key], ciOf(s, key)); }),
        [usd(s.cost.cost_per_success_usd), usd(s.cost.cost_per_dependable_task_usd)]);
    })));
  if (ENTRIES.some(function (n) { return S.agents[n].k !== first.k; })) {
    summaryDiv.appendChild(el("p", { cls: "note", text: "Entries use different k; each entry's own k is in its table below." }));
  }
  var perEntry = el("details", {}, el("summary", { text: "Per entry and domain" }));
  summaryDiv.appendChild(perEntry);
  if (ENTRIES.length === 1) { perEntry.setAttribute("open", ""); }
  ENTRIES.forEach(function (name) {
    var s = S.agents[name];
    var domains = Object.keys(s.by_domain).sort();
    var rows = METRICS.map(function (key) {
      return [label(key, s), cell(s.overall[key], ciOf(s, key))].concat(domains.map(function (d) {
        return cell(s.by_domain[d][key], ciOf(s, key, d));
      }));
    });
    if (s.system_errors && s.excluding_system_errors) {
      var ex = s.excluding_system_errors;
      rows.push(["pass@1 excluding system errors", cell(ex.overall.pass_at_1, ciOf(ex, "pass_at_1"))]
        .concat(domains.map(function (d) { return cell((ex.by_domain[d] || {}).pass_at_1, ciOf(ex, "pass_at_1", d)); })));
    }
    if (s.trials_with_skipped_checks && s.state_only_tasks) {
      var so = s.state_only_tasks;
      rows.push(["pass@1 over state-only tasks (no unjudged rubric question)", cell(so.overall.pass_at_1, null)]
        .concat(domains.map(function (d) { return cell((so.by_domain[d] || {}).pass_at_1, null); })));
    }
    if (s.ci && s.ci.unit) {
      perEntry.appendChild(el("p", { cls: "note", text: name + ": intervals resample " + s.ci.unit }));
    }
    perEntry.appendChild(el("h3", { text: name + ": " + s.tasks + " tasks, " + s.trials +
      " trials, k = " + s.k + (s.system_errors ? ", " + s.system_errors + " system errors" : "") }));
    perEntry.appendChild(table(["metric", "overall"].concat(domains), rows));
    (s.warnings || []).forEach(function (w) { summaryDiv.appendChild(el("p", { cls: "note", text: name + ": warning: " + w })); });
  });

  function errorBars(key) {
    return {
      type: "data", symmetric: false,
      array: ENTRIES.map(function (n) { var c = ciOf(S.agents[n], key); var v = S.agents[n].overall[key]; return c ? c[1] - v : 0; }),
      arrayminus: ENTRIES.map(function (n) { var c = ciOf(S.agents[n], key); var v = S.agents[n].overall[key]; return c ? v - c[0] : 0; })
    };
  }

  // ---- retention ----------------------------------------------------------------------
  PLOTS.push(Plotly.newPlot("chart-retention", [
    { type: "bar", name: "pass@1", x: ENTRIES, y: ENTRIES.map(function (n) { return S.agents[n].overall.pass_at_1; }), error_y: errorBars("pass_at_1") },
    { type: "bar", name: "observed k/k (tasks passed in every trial)", x: ENTRIES,
      y: ENTRIES.map(function (n) { return S.agents[n].overall.observed_k_of_k; }), error_y: errorBars("observed_k_of_k"),
      text: ENTRIES.map(function (n) { return "retention " + fmt(S.agents[n].overall.retention); }), textposition: "outside" }
  ], { barmode: "group", yaxis: { range: [0, 1.15], title: { text: "share" } }, margin: { t: 20 } }, PLOT_CONFIG));

  // ---- pass@k vs pass^k ---------------------------------------------------------------
  var curveTraces = [];
  var palette = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];
  ENTRIES.forEach(function (n, i) {
    var c = S.agents[n].curve, color = palette[i % palette.length];
    var ks = c.map(function (p) { return p.k; });
    curveTraces.push({ type: "scatter", mode: "lines+markers", name: n + " pass@k", x: ks, y: c.map(function (p) { return p.pass_at_k; }), line: { color: color } });
    curveTraces.push({ type: "scatter", mode: "lines+markers", name: n + " pass^k (unbiased)", x: ks, y: c.map(function (p) { return p.pass_hat_k_unbiased; }), line: { color: color, dash: "dash" } });
    curveTraces.push({ type: "scatter", mode: "lines", name: n + " pass^k (plug-in)", x: ks, y: c.map(function (p) { return p.pass_hat_k_plugin; }), line: { color: color, dash: "dot" } });
  });
  PLOTS.push(Plotly.newPlot("chart-curves", curveTraces, { xaxis: { title: { text: "k" }, dtick: 1 }, yaxis: { range: [0, 1.05] }, margin: { t: 20 } }, PLOT_CONFIG));

  // ---- ablation (statebox ablate): pass^k per configuration, paired lifts ------------
  var AB = DATA.ablation;
  if (AB) {
    document.getElementById("ablation").hidden = false;
    var names = AB.configurations.map(function (c) { return c.name; });
    var ks = AB.pass_hat_k[names[0]].map(function (p) { return p.k; });
    var abDiv = document.getElementById("ablation-tables");
    var rows = [];
    names.forEach(function (n) {
      var c = AB.pass_hat_k[n];
      rows.push([n, "pass^k unbiased (tau-bench)"].concat(c.map(function (p) { return fmt(p.pass_hat_k_unbiased); })));
      rows.push(["", "pass^k plug-in (ThinkingBox)"].concat(c.map(function (p) { return fmt(p.pass_hat_k_plugin); })));
    });
    abDiv.appendChild(table(["configuration", "estimator"].concat(ks.map(function (k) { return "k=" + k; })), rows));
    abDiv.appendChild(table(["configuration", "pass@1", "lift vs " + AB.reference, "95% paired interval", "Wilcoxon p", "observed k/k lift", "McNemar p", "Welch's t (unpaired) p"],
      names.map(function (n) {
        var pr = AB.paired[n], w = AB.welch[n];
        if (!pr) { return [n, fmt(AB.pass_at_1[n]), "reference", "", "", "", "", ""]; }
        var iv = pr.pass_at_1.interval;
        return [n, fmt(AB.pass_at_1[n]), fmt(pr.pass_at_1.lift), "[" + fmt(iv[0]) + ", " + fmt(iv[1]) + "]",
          fmt(pr.pass_at_1.test.p_value), fmt(pr.observed_k_of_k.lift), fmt(pr.observed_k_of_k.test.p_value), fmt(w.p_value)];
      })));
    document.getElementById("ablation-note").textContent = "Configurations over the same tasks, trials and seed; " +
      AB.bootstrap + ". Welch's t-test is on per-trial passes, unpaired.";
    var abTraces = [];
    names.forEach(function (n, i) {
      var c = AB.pass_hat_k[n], color = palette[i % palette.length];
      abTraces.push({ type: "scatter", mode: "lines+markers", name: n + " pass^k (unbiased)", x: ks, y: c.map(function (p) { return p.pass_hat_k_unbiased; }), line: { color: color } });
      abTraces.push({ type: "scatter", mode: "lines", name: n + " pass^k (plug-in)", x: ks, y: c.map(function (p) { return p.pass_hat_k_plugin; }), line: { color: color, dash: "dot" } });
    });
    PLOTS.push(Plotly.newPlot("chart-ablation", abTraces, { xaxis: { title: { text: "k" }, dtick: 1 }, yaxis: { title: { text: "pass^k" }, range: [0, 1.05] }, margin: { t: 20 } }, PLOT_CONFIG));
  }

  // ---- per-domain heatmap -------------------------------------------------------------
  var allDomains = [];
  ENTRIES.forEach(function (n) { Object.keys(S.agents[n].by_domain).forEach(function (d) { if (allDomains.indexOf(d) < 0) { allDomains.push(d); } }); });
  allDomains.sort();
  function heat(key, axis) {
    var z = ENTRIES.map(function (n) { return allDomains.map(function (d) { var m = S.agents[n].by_domain[d]; return m ? m[key] : null; }); });
    var text = ENTRIES.map(function (n) {
      return allDomains.map(function (d) {
        var m = S.agents[n].by_domain[d]; if (!m) { return ""; }
        var c = ciOf(S.agents[n], key, d);
        return fmt(m[key]) + (c ? "<br>[" + c[0].toFixed(2) + ", " + c[1].toFixed(2) + "]" : "");
      });
    });
    return { type: "heatmap", z: z, x: allDomains, y: ENTRIES, text: text, texttemplate: "%{text}", zmin: 0, zmax: 1,
      colorscale: [[0, "#d73027"], [0.5, "#fee08b"], [1, "#1a9850"]], xaxis: axis === 1 ? "x" : "x2", yaxis: "y", showscale: axis === 2 };
  }
  PLOTS.push(Plotly.newPlot("chart-heatmap", [heat("pass_at_1", 1), heat("observed_k_of_k", 2)], {
    grid: { rows: 1, columns: 2, pattern: "independent" },
    xaxis: { domain: [0, 0.47], title: { text: "pass@1" } }, xaxis2: { domain: [0.53, 1], title: { text: "observed k/k" } },
    yaxis: { automargin: true }, margin: { t: 20 }
  }, PLOT_CONFIG));

  // ---- cost ---------------------------------------------------------------------------
  document.getElementById("cost-table").appendChild(table(
    ["entry", "campaign cost", "passing trials", "cost per success", "tasks passed in every trial", "cost per dependable task"],
    ENTRIES.map(function (n) {
      var c = S.agents[n].cost;
      return [n, usd(c.campaign_cost_usd), c.passing_trials, usd(c.cost_per_success_usd), c.dependable_tasks, usd(c.cost_per_dependable_task_usd)];
    })));
  var pts = S.pareto.points, front = pts.filter(function (p) { return p.on_frontier; });
  PLOTS.push(Plotly.newPlot("chart-pareto", [
    { type: "scatter", mode: "markers+text", name: "entries", x: pts.map(function (p) { return p.cost_per_success_usd; }),
      y: pts.map(function (p) { return p.pass_at_1; }), text: pts.map(function (p) { return p.entry; }), textposition: "top center", marker: { size: 11 } },
    { type: "scatter", mode: "lines", name: "Pareto frontier", x: front.map(function (p) { return p.cost_per_success_usd; }),
      y: front.map(function (p) { return p.pass_at_1; }), line: { shape: "hv", dash: "dash" } }
  ], { xaxis: { title: { text: S.pareto.x } }, yaxis: { title: { text: S.pareto.y }, range: [0, 1.1] }, margin: { t: 20 } }, PLOT_CONFIG));
  if (S.pareto.left_out.length) {
    document.getElementById("cost").appendChild(el("p", { cls: "note", text: "left out (cost per success undefined: no success): " + S.pareto.left_out.join(", ") }));
  }

  // ---- failures -----------------------------------------------------------------------
  var sigs = Object.keys(S.signatures_pooled);
  PLOTS.push(Plotly.newPlot("chart-signatures", sigs.map(function (sig) {
    return { type: "bar", name: sig, x: ENTRIES, y: ENTRIES.map(function (n) { return S.agents[n].failures.signatures[sig] || 0; }) };
  }), { barmode: "stack", yaxis: { title: { text: "failed trials" } }, margin: { t: 20 } }, PLOT_CONFIG));
  var ft = document.getElementById("failure-tables");
  ft.appendChild(el("p", { cls: "note", text: "Effects of judged failed trials; the kinds overlap (a trial can have several)." }));
  ft.appendChild(table(["entry", "failed trials", "judged", "with missing effects", "with wrong values", "with extra effects"],
    ENTRIES.map(function (n) { var f = S.agents[n].failures; return [n, f.failed_trials, f.judged_failed_trials, fmt(f.with_missing), fmt(f.with_wrong), fmt(f.with_extra)]; })));
  var CLS = {};
  ENTRIES.forEach(function (n) { Object.keys(S.agents[n].failures.tool_usage_by_error_class || {}).forEach(function (c) { CLS[c] = 1; }); });
  var classes = Object.keys(CLS).sort();
  if (classes.length) {
    ft.appendChild(el("h3", { text: "tool_usage failures by the error class the agent did not recover from" }));
    ft.appendChild(table(["error class"].concat(ENTRIES),
      classes.map(function (c) { return [c].concat(ENTRIES.map(function (n) { return (S.agents[n].failures.tool_usage_by_error_class || {})[c] || 0; })); })));
  }
  var gated = ENTRIES.filter(function (n) { return S.agents[n].failures.approvals; });
  if (gated.length) {
    ft.appendChild(el("h3", { text: "Approval gate: irreversible calls held for an approver" }));
    ft.appendChild(table(["entry", "held", "approved", "refused"],
      gated.map(function (n) { var a = S.agents[n].failures.approvals; return [n, a.held, a.approved, a.refused]; })));
  }
  ft.appendChild(el("h3", { text: "Weak-evaluator table: would a tool-call grader have said done?" }));
  ft.appendChild(table(["entry", "judged failed trials", "ended cleanly + called a mutating tool", "… and last tool result without error"],
    ENTRIES.map(function (n) { var w = S.agents[n].failures.weak_evaluator; return [n, w.judged_failed_trials, fmt(w.clean_and_mutating), fmt(w.clean_mutating_last_tool_ok)]; })));
  if (S.field_policy.length) {
    ft.appendChild(el("p", { cls: "note", text: "Fields left out of state comparison: " + S.field_policy.map(function (e) { return e.table + "." + e.column + " (" + e.reason + ")"; }).join(", ") }));
  }

  // ---- simulated users ----------------------------------------------------------------
  var BEH = S.by_behaviour || [];
  var behLabels = BEH.map(function (r) { return r.behaviour + " · " + r.entry; });
  PLOTS.push(Plotly.newPlot("chart-behaviours", [
    { type: "bar", name: "pass@1", x: behLabels, y: BEH.map(function (r) { return r.pass_at_1; }) },
    { type: "bar", name: "observed k/k (tasks passed in every trial)", x: behLabels,
      y: BEH.map(function (r) { return r.observed_k_of_k; }) }
  ], { barmode: "group", yaxis: { range: [0, 1.05], title: { text: "share" } }, margin: { t: 20 } }, PLOT_CONFIG));
  var ut = document.getElementById("user-tables");
  ut.appendChild(el("h3", { text: "By user behaviour" }));
  ut.appendChild(table(["behaviour", "entry", "tasks", "trials", "pass@1", "observed k/k"],
    BEH.map(function (r) { return [r.behaviour, r.entry, r.tasks, r.trials, fmt(r.pass_at_1), fmt(r.observed_k_of_k) + " (k = " + r.k + ")"]; })));
  function shareText(n, share) { return n + " (" + (share === null || share === undefined ? "—" : share.toFixed(3)) + ")"; }
  var auditRows = [];
  ENTRIES.forEach(function (n) {
    var u = S.agents[n].users;
    if (!u) { return; }
    [["all", u]].concat(Object.keys(u.by_domain).sort().map(function (d) { return [d, u.by_domain[d]]; })).forEach(function (pair) {
      var g = pair[1];
      auditRows.push([pair[0] === "all" ? n : "", pair[0], pair[0] === "all" ? u.behaviours.join(", ") : "", g.user_turns,
        shareText(g.ungrounded_turns, g.ungrounded_turn_share), shareText(g.volunteered_turns, g.volunteered_turn_share),
        shareText(g.trials_with_ungrounded, g.trials_with_ungrounded_share)]);
    });
  });
  ut.appendChild(el("h3", { text: "Grounding audit of follow-up user turns" }));
  var auditTable = table(["entry", "domain", "behaviour", "user turns", "ungrounded turns (share)", "volunteered turns (share)", "trials with an ungrounded turn (share)"], auditRows);
  auditTable.id = "grounding-table";
  ut.appendChild(auditTable);

  // ---- trial browser ------------------------------------------------------------------
  var T = DATA.trials;
  document.getElementById("browser-note").textContent = T.embedded + " of " + T.total +
    " trials are embedded (failed trials first, then one passing trial per task and entry). Pass counts cover all trials.";
  var taskList = document.getElementById("task-list"), trialList = document.getElementById("trial-list");
  var detail = document.getElementById("trial-detail");
  var taskIndex = {};
  T.tasks.forEach(function (t) { taskIndex[t.task_id] = t; });

  var userFilter = document.getElementById("user-filter");
  function flaggedTrial(d, kind) {
    var a = d.user && d.user.audit;
    if (!kind) { return true; }
    return !!a && (kind === "ungrounded" ? a.ungrounded_turns > 0 : a.volunteered_turns > 0);
  }
  function renderTasks(filter) {
    taskList.textContent = "";
    var kind = userFilter.value;
    T.tasks.forEach(function (t) {
      if (filter && t.task_id.indexOf(filter) < 0) { return; }
      if (kind && !(t.user_flags && t.user_flags[kind] > 0)) { return; }
      var li = el("li", { "data-task": t.task_id }, t.task_id);
      Object.keys(t.counts).forEach(function (e) {
        var c = t.counts[e];
        li.appendChild(el("span", { cls: "badge " + (c[0] === c[1] ? "passed" : "failed"), title: e, text: c[0] + "/" + c[1] }));
      });
      li.addEventListener("click", function () { location.hash = "task=" + encodeURIComponent(t.task_id); });
      taskList.appendChild(li);
    });
  }
  function openTask(taskId) {
    var t = taskIndex[taskId];
    if (!t) { return; }
    Array.prototype.forEach.call(taskList.children, function (li) { li.classList.toggle("active", li.getAttribute("data-task") === taskId); });
    trialList.textContent = "";
    var shown = t.trials.filter(function (key) { return flaggedTrial(T.details[key], userFilter.value); });
    if (!shown.length) { trialList.appendChild(el("li", { text: "no trial of this task is embedded" })); }
    shown.forEach(function (key) {
      var d = T.details[key];
      var li = el("li", { "data-trial": key }, el("span", { cls: d.status, text: d.status }), " " + d.entry + " #" + d.trial);
      li.addEventListener("click", function () { location.hash = "trial=" + encodeURIComponent(key); });
      trialList.appendChild(li);
    });
  }
  function effectBlock(title, effects) {
    var box = el("div", {}, el("h4", { text: title + " (" + effects.length + ")" }));
    effects.forEach(function (e) {
      box.appendChild(el("pre", { text: e.kind + " " + e.table + " " + JSON.stringify(e.key) + "\n" +
        (e.kind === "insert" ? JSON.stringify(e.after) : e.kind === "delete" ? JSON.stringify(e.before) : JSON.stringify(e.before) + " → " + JSON.stringify(e.after)) }));
    });
    return box;
  }
  function openTrial(key) {
    var d = T.details[key];
    if (!d) { return; }
    openTask(d.task_id);
    Array.prototype.forEach.call(trialList.children, function (li) { li.classList.toggle("active", li.getAttribute("data-trial") === key); });
    detail.textContent = "";
    detail.setAttribute("data-open-trial", d.trial_id);
    var v = d.verdict;
    detail.appendChild(el("h3", { text: d.trial_id }));
    detail.appendChild(el("p", {}, el("span", { cls: d.status, text: d.status }),
      " · termination " + d.termination + (v && v.signature ? " · signature " + v.signature : "") + (d.error ? " · " + d.error : "")));
    if (v) {
      detail.appendChild(el("p", { cls: "note", text: "weak-evaluator flags: clean termination " + v.flags.clean_termination +
        ", called a mutating tool " + v.flags.called_mutating_tool + ", last tool result ok " + v.flags.last_tool_ok }));
      detail.appendChild(el("h4", { text: "Checks" }));
      detail.appendChild(table(["check", "result", "detail"], v.checks.map(function (c) {
        return [c.name, c.error ? "error" : c.skipped ? "unjudged" : c.passed ? "pass" : "FAIL", c.detail];
      })));
    }
    if (d.user) {
      var a = d.user.audit || {};
      var flags = (a.ungrounded || []).map(function (u) { return "turn " + u.turn + ": ungrounded " + u.kind + " " + u.value; })
        .concat((a.volunteered || []).map(function (v) { return "turn " + v.turn + ": volunteered " + v.fact; }));
      detail.appendChild(el("p", { cls: "note user-audit", text: "user: " + d.user.player + ", " + d.user.behaviour +
        (d.user.misremembered ? " (misremembers " + d.user.misremembered + ")" : "") + " · " + (a.user_turns || 0) +
        " follow-up turns · " + (flags.length ? flags.join("; ") : "no ungrounded value, no volunteered fact") }));
    }
    detail.appendChild(el("h4", { text: "Transcript and tool calls" }));
    var tr = el("div", { cls: "transcript" });
    // Thoughts (think tool) go where the agent had them: before the call they preceded.
    var thoughts = (d.thoughts || []).map(function (t, i) {
      var steps = d.thought_steps || [];
      return { at: steps.length === (d.thoughts || []).length ? steps[i] : 0, text: t };
    });
    var calls = 0;
    function thinkUpTo(n) {
      while (thoughts.length && thoughts[0].at <= n) {
        tr.appendChild(el("div", { cls: "event thought", text: "think: " + thoughts.shift().text }));
      }
    }
    (d.transcript || []).forEach(function (e) {
      if (e.kind === "tool_call" || e.kind === "agent_message" || e.kind === "end") { thinkUpTo(calls); }
      if (e.kind === "tool_call") { calls += 1; }
      if (e.kind === "tool_call") {
        var r = e.result || {};
        var out = r.ok ? JSON.stringify(r.output) : "ERROR " + (r.error ? r.error.kind + (r.error.error_class ? " [" + r.error.error_class + "]" : "") + ": " + r.error.message : "");
        if (e.approval) { out = "[" + (e.approval.approved ? "approved" : "REFUSED") + " by " + e.approval.approver + ": " + e.approval.reason + "] " + out; }
        tr.appendChild(el("div", { cls: "event tool_call" + (r.ok ? "" : " error"), text: e.call.tool + "(" + JSON.stringify(e.call.args) + ") → " + out }));
      } else {
        var who = { user_message: "user", agent_message: "agent", end: "agent (end)" }[e.kind];
        tr.appendChild(el("div", { cls: "event " + e.kind, text: who + ": " + (e.text || "") }));
      }
    });
    thinkUpTo(calls);
    detail.appendChild(tr);
    if (v) {
      detail.appendChild(el("h4", { text: "Effects: golden beside actual" }));
      detail.appendChild(el("div", { cls: "effects" }, effectBlock("golden (expected)", v.expected_effects), effectBlock("actual", v.actual_effects)));
      var cmp = v.comparison, diffs = cmp.missing.concat(cmp.wrong, cmp.extra);
      detail.appendChild(el("h4", { text: diffs.length ? "Differences (missing / wrong / extra)" : "No differences: the state matches the golden state" }));
      if (diffs.length) {
        var t = table(["kind", "op", "row", "column", "golden", "actual"], diffs.map(function (x) {
          return [x.kind, x.op, x.table + " " + JSON.stringify(x.key), x.column || "(row)", JSON.stringify(x.expected), JSON.stringify(x.actual)];
        }));
        Array.prototype.forEach.call(t.querySelectorAll("tr"), function (row, i) { if (i > 0) { row.className = "diff-" + diffs[i - 1].kind; } });
        detail.appendChild(t);
      }
    }
  }
  function route() {
    var h = decodeURIComponent(location.hash.slice(1));
    if (h.indexOf("user=") === 0) {  // #user=ungrounded: the browser filtered by the audit
      userFilter.value = h.slice(5);
      renderTasks(document.getElementById("task-filter").value);
    }
    if (h.indexOf("trial=") === 0) { openTrial(h.slice(6)); }
    else if (h.indexOf("task=") === 0) { openTask(h.slice(5)); }
  }
  document.getElementById("task-filter").addEventListener("input", function (e) { renderTasks(e.target.value); });
  userFilter.addEventListener("change", function () {
    renderTasks(document.getElementById("task-filter").value);
    trialList.textContent = "";
  });
  window.addEventListener("hashchange", route);
  renderTasks("");
  route();

  function syncErrors() {
    var errs = document.getElementById("page-errors");
    errs.textContent = window.__reportErrors.join("\n");
    errs.setAttribute("data-count", String(window.__reportErrors.length));
  }
  window.__syncReportErrors = syncErrors;
  syncErrors();
  Promise.all(PLOTS).then(function () {
    syncErrors();
    document.body.setAttribute("data-ready", "1");
  }, function (e) {
    window.__reportErrors.push("plot failed: " + String(e));
    syncErrors();
  });
})();
