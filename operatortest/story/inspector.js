// The ctrlsim run inspector: plain DOM and SVG, no library, no network.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var TOP = 22, LANE_H = 50, TRACK_Y = 20, TRACK_H = 22, AXIS_H = 30;
  var zoom = 1, selected = -1, hidden = {};
  var scroll = document.getElementById("plot-scroll");
  var svg = document.getElementById("plot");
  var eventOfStep = {};
  D.events = D.events || [];
  D.links = D.links || [];
  D.verdicts = D.verdicts || [];
  D.lanes = D.lanes || [];
  D.steps = D.steps || [];
  D.events.forEach(function (e, i) { eventOfStep[e.Step] = i; });

  function el(tag, attrs, parent, text) {
    var n = document.createElementNS(NS, tag);
    for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) { n.setAttribute(k, attrs[k]); } }
    if (text !== undefined) { n.textContent = text; }
    if (parent) { parent.appendChild(n); }
    return n;
  }
  function h(tag, attrs, parent, text) {
    var n = document.createElement(tag);
    for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) { n.setAttribute(k, attrs[k]); } }
    if (text !== undefined) { n.textContent = text; }
    if (parent) { parent.appendChild(n); }
    return n;
  }
  function trimNum(x) { return String(parseFloat(x.toFixed(9))); }
  // dur formats nanoseconds as Go's time.Duration.String does.
  function dur(ns) {
    if (ns === 0) { return "0s"; }
    var neg = ns < 0, s;
    if (neg) { ns = -ns; }
    if (ns < 1e3) { s = ns + "ns"; }
    else if (ns < 1e6) { s = trimNum(ns / 1e3) + "µs"; }
    else if (ns < 1e9) { s = trimNum(ns / 1e6) + "ms"; }
    else {
      var hh = Math.floor(ns / 3.6e12), mm = Math.floor((ns % 3.6e12) / 6e10), sec = (ns % 6e10) / 1e9;
      s = (hh ? hh + "h" : "") + (hh || mm ? mm + "m" : "") + trimNum(sec) + "s";
    }
    return (neg ? "-" : "") + s;
  }
  // ① to ⑩, then (11): the circled numbers past ⑩ are missing from common
  // fonts (svg.go's circled keeps the same rule).
  function circled(n) { return n >= 1 && n <= 10 ? String.fromCharCode(0x2460 + n - 1) : "(" + n + ")"; }
  function who(st) {
    var w = st.Process || "-";
    if (st.Controller) { w += "/" + st.Controller; }
    if (st.Worker > 0) { w += "#" + st.Worker; }
    if (st.Reconcile > 0) { w += " r" + st.Reconcile; }
    return w;
  }
  function atText(st) { return dur(st.At); }

  // The time scale: the same piecewise-linear map as the static picture.
  function scaleX(t) {
    var segs = D.segments;
    for (var i = 0; i < segs.length; i++) {
      var g = segs[i];
      if (t < g.From) {
        if (i === 0) { return g.X; }
        var p = segs[i - 1];
        return p.X + p.W + (g.X - p.X - p.W) * (t - p.To) / (g.From - p.To);
      }
      if (t <= g.To) { return g.To === g.From ? g.X + g.W / 2 : g.X + g.W * (t - g.From) / (g.To - g.From); }
    }
    return D.width;
  }
  function plotW() { return Math.max(600, scroll.clientWidth - 12) * zoom; }
  function px(t) { return 6 + scaleX(t) / D.width * (plotW() - 12); }

  function visibleLanes() {
    var out = [];
    D.lanes.forEach(function (l, i) { if (!hidden[i]) { out.push(i); } });
    return out;
  }

  function clickable(node, step) {
    if (step === undefined || step < 0) { return; }
    node.setAttribute("class", (node.getAttribute("class") || "") + " clickable");
    node.setAttribute("data-step", step);
    node.addEventListener("click", function (ev) { ev.stopPropagation(); select(step, true); });
  }

  function render() {
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var lanes = visibleLanes(), W = plotW();
    var H = TOP + lanes.length * LANE_H + AXIS_H;
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    var defs = el("defs", {}, svg);
    var pat = el("pattern", { id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    el("rect", { width: 6, height: 6, fill: "#fde2c8" }, pat);
    el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#f4a261", "stroke-width": 3 }, pat);
    var mk = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0 0 L10 5 L0 10 z", fill: "#7a4fa0" }, mk);
    var rowOf = {};
    lanes.forEach(function (li, r) { rowOf[li] = r; });
    function laneTop(li) { return TOP + rowOf[li] * LANE_H; }
    // Lane backgrounds.
    lanes.forEach(function (li, r) {
      var l = D.lanes[li];
      var fill = l.Kind === "object" ? "#f1f5fb" : (l.Kind === "process" ? "#f7f7f7" : "#f8f4fb");
      el("rect", { x: 0, y: laneTop(li) + 1, width: W, height: LANE_H - 2, fill: fill }, svg);
      el("line", { x1: 0, x2: W, y1: laneTop(li) + TRACK_Y + TRACK_H / 2, y2: laneTop(li) + TRACK_Y + TRACK_H / 2, stroke: "#dddddd" }, svg);
    });
    // Breaks.
    for (var i = 1; i < D.segments.length; i++) {
      var bx = 6 + (D.segments[i].X - 9) / D.width * (W - 12);
      el("rect", { x: bx - 4, y: TOP, width: 8, height: H - TOP - AXIS_H, fill: "#ffffff", opacity: 0.9, "pointer-events": "none" }, svg);
      el("path", { d: "M" + (bx + 1) + " " + (H - AXIS_H - 6) + " l-4 12 m10 -12 l-4 12", stroke: "#555555", fill: "none" }, svg);
    }
    // Spans and marks.
    lanes.forEach(function (li) {
      var l = D.lanes[li], y = laneTop(li) + TRACK_Y;
      (l.Spans || []).forEach(function (sp) {
        var x0 = px(sp.From), x1 = px(sp.To), n;
        if (sp.Kind === "fault") {
          n = el("rect", { x: x0, y: y + TRACK_H - 7, width: Math.max(x1 - x0, 3), height: 7, fill: "url(#hatch)" }, svg);
          el("title", {}, n, sp.Label + " (" + dur(sp.From) + "–" + dur(sp.To) + ")");
          el("text", { x: x0 + 2, y: y - 4, fill: "#b5651d" }, svg, sp.Label);
        } else if (sp.Kind === "state") {
          n = el("rect", { x: x0, y: y + 1, width: Math.max(x1 - x0, 2), height: TRACK_H - 2, fill: sp.Color, stroke: "#ffffff", "data-rv": sp.RV }, svg);
          el("title", {}, n, sp.Label + " from " + dur(sp.From) + " (rv=" + sp.RV + ")");
          if (sp.Label.length * 6.7 + 6 <= x1 - x0) { el("text", { x: x0 + 3, y: y + TRACK_H / 2 + 4 }, svg, sp.Label); }
          n.addEventListener("click", function () { showVersion(sp.RV); });
          n.setAttribute("class", "clickable");
        } else {
          n = el("rect", { x: x0, y: y + TRACK_H / 2 - 4, width: Math.max(x1 - x0, 3), height: 8, rx: 2, fill: sp.Color, opacity: 0.85 }, svg);
          el("title", {}, n, D.steps[sp.Step] ? D.steps[sp.Step].line : sp.Label);
          clickable(n, sp.Step);
        }
      });
    });
    // Every step of a lane: a tick to click (reads short and grey, writes long and dark).
    D.steps.forEach(function (st, si) {
      if (st.lane < 0 || hidden[st.lane] || rowOf[st.lane] === undefined) { return; }
      if (st.Op === "reconcile" || st.Op === "result") { return; }
      var y = laneTop(st.lane) + TRACK_Y + TRACK_H / 2, x = px(st.At);
      var write = /^(create|update|patch|delete)/.test(st.Op);
      var n = el("rect", { x: x - 1.5, y: y - (write ? 8 : 5), width: 3, height: write ? 16 : 10, fill: write ? "#333333" : "#9a9a9a" }, svg);
      el("title", {}, n, st.line);
      clickable(n, si);
    });
    lanes.forEach(function (li) {
      var l = D.lanes[li], cy = laneTop(li) + TRACK_Y + TRACK_H / 2;
      (l.Marks || []).forEach(function (m) {
        var x = px(m.At), n;
        if (m.Shape === "cross") { n = el("path", { d: "M" + (x - 5) + " " + (cy - 5) + " l10 10 m0 -10 l-10 10", stroke: m.Color, "stroke-width": 2.5 }, svg); }
        else if (m.Shape === "restart") { n = el("path", { d: "M" + (x - 3) + " " + (cy - 5) + " l8 5 l-8 5 z", fill: m.Color }, svg); }
        else if (m.Shape === "diamond") { n = el("path", { d: "M" + x + " " + (cy - 5) + " l5 5 l-5 5 l-5 -5 z", fill: m.Color }, svg); }
        else if (m.Shape === "dot") { n = el("circle", { cx: x, cy: cy, r: 4, fill: m.Color }, svg); }
        else { return; }
        el("title", {}, n, m.Tip);
        if (m.Label && eventOfStep[m.Step] === undefined) { el("text", { x: x + 6, y: cy - 12, fill: m.Color }, svg, m.Label); }
        clickable(n, m.Step);
      });
    });
    // The heal and the verdicts.
    if (D.heal >= 0) {
      var hx = px(D.heal);
      el("line", { x1: hx, x2: hx, y1: 4, y2: H - AXIS_H, stroke: "#666666", "stroke-dasharray": "5,3", "pointer-events": "none" }, svg);
      el("text", { x: hx + 3, y: 14, fill: "#666666" }, svg, D.healLabel || "heal");
    }
    D.verdicts.forEach(function (v) {
      var vx = px(v.At);
      el("line", { x1: vx, x2: vx, y1: 4, y2: H - AXIS_H, stroke: "#d62828", "stroke-dasharray": "2,2", "pointer-events": "none" }, svg);
      el("text", { x: vx + 3, y: 14, fill: "#d62828", "font-weight": "bold" }, svg, "✗ " + v.Property + (v.Judged !== v.At ? " (judged at " + dur(v.Judged) + ")" : ""));
    });
    // Links and events.
    D.links.forEach(function (lk) {
      var a = D.events[lk.From], b = D.events[lk.To];
      if (rowOf[a.Lane] === undefined || rowOf[b.Lane] === undefined) { return; }
      var x0 = px(a.At), y0 = laneTop(a.Lane) + TRACK_Y + TRACK_H / 2, x1 = px(b.At), y1 = laneTop(b.Lane) + TRACK_Y + TRACK_H / 2;
      var bend = a.Lane === b.Lane ? -26 : 0;
      var p = el("path", { d: "M" + x0 + " " + y0 + " C" + (x0 + (x1 - x0) / 3) + " " + (y0 + (y1 - y0) / 3 + bend) + " " + (x0 + 2 * (x1 - x0) / 3) + " " + (y0 + 2 * (y1 - y0) / 3 + bend) + " " + (x1 - 2) + " " + y1,
        fill: "none", stroke: "#7a4fa0", "stroke-width": 1.5, "marker-end": "url(#arrow)" }, svg);
      el("title", {}, p, lk.Label);
    });
    var labelEnd = {};
    D.events.map(function (e, ei) { return ei; }).sort(function (a, b) { return D.events[a].At - D.events[b].At; }).forEach(function (ei) {
      var e = D.events[ei];
      if (rowOf[e.Lane] === undefined) { return; }
      var x = px(e.At), cy = laneTop(e.Lane) + TRACK_Y + TRACK_H / 2;
      var color = e.Role === "cause" ? "#c2410c" : e.Role === "fault" ? "#7f1d1d" : e.Role === "user" ? "#6a4c93" : "#d62828";
      var g = el("g", { "data-event": ei + 1, "class": "event" }, svg);
      el("circle", { cx: x, cy: cy, r: 8, fill: "#ffffff", "fill-opacity": 0.01, stroke: color, "stroke-width": 2 }, g);
      // The label in place where it fits before the next one; the number
      // always, after the lane's previous label when that reaches past the
      // event (events at one instant), so that no two overlap. A circled
      // number is counted two characters wide: fonts draw it wider.
      var full = circled(ei + 1) + " " + e.Label, end = labelEnd[e.Lane] || -1e9;
      var lx = Math.max(x + 9, end + 4), next = Infinity;
      D.events.forEach(function (o) { if (o.Lane === e.Lane && o.At > e.At) { next = Math.min(next, px(o.At) + 9); } });
      var text = lx === x + 9 && lx + (full.length + 1) * 6.7 <= next - 4 ? full : circled(ei + 1);
      el("text", { x: lx, y: laneTop(e.Lane) + 13, fill: color, "font-weight": "bold" }, g, text);
      labelEnd[e.Lane] = lx + (text.length + 1) * 6.7;
      el("title", {}, g, D.steps[e.Step].line);
      clickable(g, e.Step);
    });
    // The selection.
    if (selected >= 0 && D.steps[selected]) {
      var sx = px(D.steps[selected].At);
      el("line", { x1: sx, x2: sx, y1: TOP, y2: H - AXIS_H, stroke: "#1d4ed8", "stroke-width": 1.5, id: "selection", "pointer-events": "none" }, svg);
    }
    // The axis.
    var ay = H - AXIS_H + 4;
    D.segments.forEach(function (g) {
      el("line", { x1: 6 + g.X / D.width * (W - 12), x2: 6 + (g.X + g.W) / D.width * (W - 12), y1: ay, y2: ay, stroke: "#000000" }, svg);
    });
    var last = -1e9;
    (D.ticks || []).forEach(function (t) {
      var x = 6 + t.x / D.width * (W - 12);
      el("line", { x1: x, x2: x, y1: ay, y2: ay + 4, stroke: "#000000" }, svg);
      var w = t.label.length * 6.7;
      if (x - w / 2 < last + 6) { return; }
      el("text", { x: x, y: ay + 16, "text-anchor": "middle", "class": "tick" }, svg, t.label);
      last = x + w / 2;
    });
    unoverlap(svg);
    renderNames(lanes);
  }

  // unoverlap moves each label of the plot (not the axis's ticks) right of the
  // labels it would overlap, as the browser measures them: labels at one
  // instant (two plan steps, a verdict and the heal) read one after another.
  function unoverlap(svg) {
    var placed = [];
    Array.prototype.slice.call(svg.querySelectorAll("text:not(.tick)")).map(function (t) { return { t: t, b: t.getBBox() }; })
      .sort(function (a, b) { return a.b.x - b.b.x; }).forEach(function (o) {
        var b = o.b, x = b.x, moved = true;
        while (moved) {
          moved = false;
          placed.forEach(function (p) {
            if (x < p.x + p.w + 4 && p.x < x + b.width && b.y + 1 < p.y + p.h && p.y + 1 < b.y + b.height) { x = p.x + p.w + 4; moved = true; }
          });
        }
        if (x !== b.x) { o.t.setAttribute("x", parseFloat(o.t.getAttribute("x")) + (x - b.x)); }
        placed.push({ x: x, y: b.y, w: b.width, h: b.height });
      });
  }

  function renderNames(lanes) {
    var names = document.getElementById("names");
    names.textContent = "";
    h("div", { style: "height:" + TOP + "px" }, names);
    lanes.forEach(function (li) {
      var l = D.lanes[li];
      var d = h("div", { "class": "lane", style: "height:" + LANE_H + "px", title: l.Name }, names, l.Name);
      h("small", {}, d, l.Kind + (l.Note ? ", " + l.Note : ""));
    });
    h("div", { "class": "axis", style: "height:" + AXIS_H + "px" }, names, "virtual time");
  }

  function renderFilters() {
    var f = document.getElementById("filters");
    var groups = [["process", "processes and controllers"], ["object", "objects"], ["workload", "workload"], ["apiserver", "apiserver"]];
    groups.forEach(function (g) {
      var idx = [];
      D.lanes.forEach(function (l, i) { if (l.Kind === g[0]) { idx.push(i); } });
      if (!idx.length) { return; }
      var span = h("span", { "class": "group" }, f);
      h("b", {}, span, g[1] + ": ");
      var procs = {};
      idx.forEach(function (i) {
        var l = D.lanes[i];
        if (g[0] === "process" && !procs[l.Group] && idx.filter(function (j) { return D.lanes[j].Group === l.Group; }).length > 1) {
          procs[l.Group] = true;
          var pl = h("label", {}, span);
          var pc = h("input", { type: "checkbox", checked: "checked", "data-process": l.Group }, pl);
          pl.appendChild(document.createTextNode(" " + l.Group + " (all)"));
          pc.addEventListener("change", function () {
            idx.forEach(function (j) { if (D.lanes[j].Group === l.Group) { hidden[j] = !pc.checked; var c = document.querySelector('input[data-lane="' + j + '"]'); if (c) { c.checked = pc.checked; } } });
            render();
          });
        }
        var lab = h("label", {}, span);
        var c = h("input", { type: "checkbox", checked: "checked", "data-lane": i }, lab);
        lab.appendChild(document.createTextNode(" " + (g[0] === "process" && l.Group && l.Name.indexOf(l.Group + "/") === 0 ? l.Name.slice(l.Group.length + 1) : l.Name)));
        c.addEventListener("change", function () { hidden[i] = !c.checked; render(); });
      });
    });
  }

  function renderVerdicts() {
    var box = document.getElementById("verdicts");
    if (!D.verdicts.length) { h("p", { "class": "hint" }, box, "No property was violated in this run."); return; }
    (D.notes || []).forEach(function (n) { h("p", { "class": "note" }, box, n); });
    D.verdicts.forEach(function (v, vi) {
      var d = h("div", { "class": "verdict" }, box);
      h("h2", {}, d, "✗ " + v.Property + " violated");
      h("p", {}, d, v.Detail);
      var where = "Judged at " + dur(v.Judged) + ".";
      if (v.Event >= 0) { where += " It happened at " + circled(v.Event + 1) + ", " + dur(v.At) + ": drawn there on the timeline."; }
      h("p", {}, d, where);
      var evs = [];
      D.events.forEach(function (e, ei) { if (e.Verdict === vi) { evs.push(ei); } });
      if (!evs.length) { h("p", { "class": "hint" }, d, "No step of the trace is named by this verdict; the lanes of the objects it names show their state."); return; }
      var ol = h("ol", {}, d);
      evs.forEach(function (ei) {
        var e = D.events[ei], st = D.steps[e.Step];
        var li = h("li", { value: ei + 1, "class": "role-" + e.Role, "data-story-event": ei + 1 }, ol);
        var text = atText(st) + "  " + who(st) + ": " + e.Label;
        D.links.forEach(function (lk) { if (lk.From === ei) { text += "  → " + lk.Label + " " + circled(lk.To + 1); } });
        li.textContent = text;
        li.addEventListener("click", function () { select(e.Step, true); });
      });
    });
  }

  // The steps table.
  var rows = [];
  function renderSteps() {
    var tb = document.querySelector("#steps tbody");
    D.steps.forEach(function (st, i) {
      var tr = h("tr", { "data-step": i }, tb);
      if (eventOfStep[i] !== undefined) { tr.className = "story"; }
      if (isStale(st)) { tr.className += " stale"; }
      h("td", {}, tr, eventOfStep[i] !== undefined ? circled(eventOfStep[i] + 1) : String(i + 1));
      h("td", {}, tr, atText(st));
      h("td", { "class": "who", title: who(st) }, tr, who(st));
      h("td", {}, tr, st.Op);
      h("td", { "class": "obj" }, tr, st.Object);
      h("td", { "class": "rv" }, tr, rvText(st));
      h("td", { "class": "res", title: st.Result }, tr, st.Result);
      tr.addEventListener("click", function () { select(i, false); });
      rows.push(tr);
    });
    filterSteps();
  }
  // What a read returned against what was current (trace.Step.Stale), and
  // what a write wrote.
  function isRead(op) { var o = op.replace(/^cached-/, "").split("/")[0]; return o === "get" || o === "list"; }
  function isList(op) { return op.replace(/^cached-/, "").split("/")[0] === "list"; }
  function isStale(st) { return isRead(st.Op) && (st.RVSeen || 0) !== (st.RVCurrent || 0); }
  function rvText(st) {
    var rv = "";
    if (isList(st.Op) && (st.Result === "ok" || !st.Result)) { rv = (st.Items || 0) + ((st.Items || 0) === 1 ? " item" : " items"); }
    if (st.RVSeen || st.RVCurrent) {
      var at = isList(st.Op) ? "cache at " : "rv=";
      var seen = st.RVSeen ? at + st.RVSeen : "none";
      rv += (rv ? ", " : "") + (st.RVSeen === st.RVCurrent ? seen : isRead(st.Op) ? seen + " (current " + (st.RVCurrent || "none") + ")" : "sent " + st.RVSeen + ", current " + st.RVCurrent);
    }
    if (st.Digest === "deleted") { rv += (rv ? " " : "") + "deleted it"; } else if (st.RVWritten) { rv += (rv ? " " : "") + "wrote " + st.RVWritten; }
    return rv;
  }
  function filterSteps() {
    var q = document.getElementById("step-filter").value.toLowerCase();
    var only = document.getElementById("only-story").checked;
    var admin = document.getElementById("show-admin").checked;
    var startup = document.getElementById("show-startup").checked;
    rows.forEach(function (tr, i) {
      var st = D.steps[i];
      // The start-up lines (log, start, setup) of the processes the reader
      // did not come for (kube-controller-manager's, say), as the text
      // timeline folds them.
      var other = D.lead && D.lead.length && D.lead.indexOf(st.Process) < 0 && st.Process !== "admin" && st.Process !== "";
      var show = (!q || st.line.toLowerCase().indexOf(q) >= 0) && (!only || eventOfStep[i] !== undefined) && (admin || st.Process !== "admin") &&
        (startup || eventOfStep[i] !== undefined || !other || ["log", "start", "setup", "runnable"].indexOf(st.Op) < 0);
      tr.style.display = show ? "" : "none";
    });
  }

  // Line diff (longest common subsequence).
  function diff(a, b) {
    var A = a.split("\n"), B = b.split("\n");
    if (A.length * B.length > 4e6) { return null; }
    var n = A.length, m = B.length, L = [];
    for (var i = 0; i <= n; i++) { L.push(new Int32Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) { for (var j = m - 1; j >= 0; j--) { L[i][j] = A[i] === B[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]); } }
    var out = [];
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && A[i] === B[j]) { out.push([" ", A[i]]); i++; j++; }
      else if (j < m && (i >= n || L[i][j + 1] >= L[i + 1][j])) { out.push(["+", B[j]]); j++; }
      else { out.push(["-", A[i]]); i++; }
    }
    return out;
  }
  function showDiff(parent, a, b) {
    var d = diff(a, b);
    var pre = h("pre", { "class": "diff" }, parent);
    if (!d) { pre.textContent = "(too large to diff)"; return; }
    var changed = d.some(function (x) { return x[0] !== " "; });
    if (!changed) { pre.textContent = "(no difference)"; return; }
    d.forEach(function (x, k) {
      var near = false;
      for (var q = Math.max(0, k - 2); q <= Math.min(d.length - 1, k + 2); q++) { if (d[q][0] !== " ") { near = true; } }
      if (!near) { return; }
      h("span", { "class": x[0] === "+" ? "add" : (x[0] === "-" ? "del" : "ctx") }, pre, x[0] + " " + x[1]);
    });
  }
  function version(rv) { return rv ? D.objects[String(rv)] : undefined; }
  function showVersion(rv) {
    var det = document.getElementById("detail"), v = version(rv);
    det.textContent = "";
    if (!v) { h("p", { "class": "hint" }, det, "No stored version rv=" + rv + "."); return; }
    h("h2", {}, det, v.key + " at rv=" + rv);
    h("p", {}, det, v.type + " at " + dur(v.at));
    h("pre", {}, det, v.yaml);
  }

  function detail(i) {
    var det = document.getElementById("detail"), st = D.steps[i];
    det.textContent = "";
    h("h2", {}, det, "Step " + (i + 1) + ": " + st.Op + " " + (st.Object || ""));
    var t = h("table", {}, det);
    function row(k, v) { var tr = h("tr", {}, t); h("td", {}, tr, k); h("td", { "class": "mono" }, tr, v); }
    row("time", atText(st));
    row("who", who(st));
    row("request", st.Op + (st.Object ? " " + st.Object : ""));
    if (isList(st.Op) && (st.Result === "ok" || !st.Result)) { row("returned", (st.Items || 0) + ((st.Items || 0) === 1 ? " item" : " items")); }
    if (st.RVSeen || st.RVCurrent) { row("resourceVersion", (isList(st.Op) ? "cache at " : "had ") + st.RVSeen + ", server had " + st.RVCurrent); }
    if (st.Digest === "deleted") { row("wrote", "nothing: the object was deleted (its last finalizer removed)"); } else if (st.RVWritten) { row("wrote", "rv=" + st.RVWritten); }
    row("result", st.Result || "-");
    if (isStale(st) && isList(st.Op)) {
      h("div", { "class": "callout" }, det, "Stale: the cache had applied the changes of this kind through rv=" + st.RVSeen + " while the newest change to what it lists was rv=" + st.RVCurrent + "; the list returned " + (st.Items || 0) + " item(s).");
    } else if (isStale(st) && !st.RVSeen) {
      h("div", { "class": "callout" }, det, "Stale: the caller read nothing while the server had the object at rv=" + st.RVCurrent + ".");
    } else if (isStale(st) && !st.RVCurrent) {
      h("div", { "class": "callout" }, det, "Stale: the caller read rv=" + st.RVSeen + " of an object the server no longer had.");
    } else if (isStale(st) || (st.RVSeen && st.RVSeen < st.RVCurrent)) {
      h("div", { "class": "callout" }, det, "Stale: the caller " + (isRead(st.Op) ? "read" : "wrote from") + " rv=" + st.RVSeen + " while the server had rv=" + st.RVCurrent + ".");
    }
    var ei = eventOfStep[i];
    if (ei !== undefined) {
      var e = D.events[ei], v = D.verdicts[e.Verdict];
      var c = h("div", { "class": "callout violation" }, det);
      h("b", {}, c, circled(ei + 1) + " " + e.Label);
      var why = [];
      D.links.forEach(function (lk) {
        if (lk.To === ei) { why.push("follows " + circled(lk.From + 1) + " (" + lk.Label + ")"); }
        if (lk.From === ei) { why.push(lk.Label + " " + circled(lk.To + 1)); }
      });
      if (why.length) { h("div", {}, c, why.join("; ")); }
      if (v) { h("div", {}, c, "Part of: " + v.Property + " violated: " + v.Detail + (v.Event === ei ? " (the violation happened here)" : "")); }
    }
    var seen = version(st.RVSeen), stored = version(st.RVWritten || st.RVCurrent);
    var storedRV = st.RVWritten || st.RVCurrent;
    if (seen) {
      h("h2", {}, det, "As the client saw it (rv=" + st.RVSeen + ")");
      h("pre", {}, det, seen.yaml);
    } else if (st.RVSeen) {
      h("p", { "class": "hint" }, det, "The version the client had (rv=" + st.RVSeen + ") is not in the server's log.");
    }
    if (stored && storedRV !== st.RVSeen) {
      h("h2", {}, det, (st.RVWritten ? "As stored" : "As the server had it") + " (rv=" + storedRV + ")");
      if (seen) { h("p", { "class": "hint" }, det, "Difference from what the client saw (- saw, + stored):"); showDiff(det, seen.yaml, stored.yaml); }
      h("pre", {}, det, stored.yaml);
    }
    if (!seen && !stored && !st.Object) { h("p", { "class": "hint" }, det, "This step has no object."); }
    // The reconcile around it.
    if (st.Controller && st.Reconcile) {
      h("h2", {}, det, "The reconcile (" + who(st) + ")");
      var ul = h("ul", {}, det);
      var start = i;
      while (start > 0 && !(D.steps[start].Op === "reconcile" && same(D.steps[start], st))) { start--; }
      for (var k = start; k < D.steps.length; k++) {
        var s2 = D.steps[k];
        if (!same(s2, st)) { continue; }
        if (k > start && s2.Op === "reconcile") { break; }
        var li = h("li", {}, ul);
        var a = h("a", { "class": "step" }, li, s2.line.trim());
        if (k === i) { a.style.fontWeight = "bold"; }
        a.addEventListener("click", (function (kk) { return function () { select(kk, true); }; })(k));
        if (s2.Op === "result" || s2.Op === "crash") { break; }
      }
    }
    h("h2", {}, det, "Log lines around it");
    if (!D.hasLogs) {
      h("p", { "class": "hint" }, det, "The controllers logged nothing in this run (their Info and Error lines are trace steps \"log\").");
    } else {
      var near = D.logs.filter(function (l) { return l.process === st.Process && Math.abs(l.at - st.At) <= 1e9; });
      if (!near.length) { h("p", { "class": "hint" }, det, "No log line of " + (st.Process || "this process") + " within a second of this step."); }
      else { h("pre", {}, det, near.map(function (l) { return dur(l.at) + " " + (l.controller || l.process) + ": " + l.text; }).join("\n")); }
    }
  }
  function same(a, b) { return a.Process === b.Process && a.Controller === b.Controller && a.Worker === b.Worker && a.Reconcile === b.Reconcile; }

  function select(i, fromPlot) {
    selected = i;
    rows.forEach(function (tr) { tr.classList.remove("sel"); });
    if (rows[i]) {
      rows[i].classList.add("sel");
      if (rows[i].style.display === "none") { rows[i].style.display = ""; }
      var sc = document.getElementById("steps-scroll");
      sc.scrollTop = rows[i].offsetTop - sc.clientHeight / 2;
    }
    detail(i);
    render();
    if (!fromPlot) {
      var x = px(D.steps[i].At);
      if (x < scroll.scrollLeft || x > scroll.scrollLeft + scroll.clientWidth) { scroll.scrollLeft = x - scroll.clientWidth / 2; }
    }
  }

  function setZoom(z, anchor) {
    var old = zoom;
    zoom = Math.min(2000, Math.max(1, z));
    var a = anchor === undefined ? scroll.clientWidth / 2 : anchor;
    var pos = (scroll.scrollLeft + a) / old * zoom - a;
    render();
    scroll.scrollLeft = pos;
  }
  document.getElementById("zoom-in").addEventListener("click", function () { setZoom(zoom * 2); });
  document.getElementById("zoom-out").addEventListener("click", function () { setZoom(zoom / 2); });
  document.getElementById("zoom-fit").addEventListener("click", function () { setZoom(1); });
  scroll.addEventListener("wheel", function (ev) {
    if (!ev.ctrlKey && !ev.metaKey) { return; }
    ev.preventDefault();
    var r = scroll.getBoundingClientRect();
    setZoom(zoom * (ev.deltaY < 0 ? 1.25 : 0.8), ev.clientX - r.left);
  }, { passive: false });
  document.getElementById("step-filter").addEventListener("input", filterSteps);
  document.getElementById("only-story").addEventListener("change", filterSteps);
  document.getElementById("show-admin").addEventListener("change", filterSteps);
  document.getElementById("show-startup").addEventListener("change", filterSteps);
  window.addEventListener("resize", render);

  document.getElementById("plan").textContent = D.plan || "(no plan)";
  renderVerdicts();
  renderFilters();
  renderSteps();
  render();
  var first = D.verdicts.length && D.verdicts[0].Event >= 0 ? D.events[D.verdicts[0].Event].Step : (D.events.length ? D.events[0].Step : -1);
  if (first >= 0) { select(first, false); }
  document.body.setAttribute("data-ready", "true");
}());
