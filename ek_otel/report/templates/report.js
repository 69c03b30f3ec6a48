(function () {
  "use strict";
  // Every string below comes from traces: it is only ever set with textContent or as an
  // attribute value, never parsed as HTML.
  var DATA = JSON.parse(document.getElementById("ek-data").textContent);

  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (name) {
        var value = props[name];
        if (value === null || value === undefined || value === false) return;
        if (name === "class") node.className = value;
        else if (name === "text") node.textContent = String(value);
        else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
        else node.setAttribute(name, String(value));
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  function rate(v) { return v === null || v === undefined ? "\u2013" : Number(v).toFixed(3); }
  // precision, recall, F1: null where undefined (no call predicted / expected)
  function defined(v) { return v === null || v === undefined ? "n/a" : Number(v).toFixed(3); }
  function signed(v) {
    if (v === null || v === undefined) return "\u2013";
    return (v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1") + Math.abs(v).toFixed(3);
  }
  function money(v) {
    if (v === null || v === undefined) return "\u2013";
    if (v >= 100) return "$" + v.toLocaleString("en-US", {minimumFractionDigits: 2, maximumFractionDigits: 2});
    return "$" + Number(Number(v).toPrecision(3)).toString();
  }
  function count(v) { return v === null || v === undefined ? "\u2013" : Number(v).toLocaleString("en-US"); }
  var LONG = 4000;  // longer values are cut for display (the JSON report has them whole)
  function json(v) {
    if (v === undefined) return "(absent)";
    var text;
    try { text = JSON.stringify(v); } catch (e) { text = String(v); }
    if (text === undefined) text = String(v);
    return text.length > LONG ? text.slice(0, LONG) + "\u2026 (" + count(text.length - LONG) + " more characters)" : text;
  }
  function pill(kind, text) { return el("span", {"class": "pill " + kind, text: text || kind}); }
  function bar(v, format) {
    var fill = el("span", {"class": "fill"});
    var share = v === null || v === undefined ? 0 : Math.max(0, Math.min(1, v));
    var text = (format || rate)(v);
    fill.style.width = (share * 100).toFixed(1) + "%";
    return el("div", {"class": "bar", title: text}, [fill, el("span", {"class": "text", text: text})]);
  }
  function deltaCell(v) {
    return el("span", {"class": v > 0 ? "pos" : v < 0 ? "neg" : "", text: signed(v)});
  }

  // ---------------------------------------------------------------- the table component
  // columns: {key, label, kind: text|num|rate|bar|money|delta|node, value(row), cell(row)}
  function DataTable(root, opts) {
    this.root = root;
    this.opts = opts;
    this.pageSize = opts.pageSize || 50;
    this.page = 0;
    this.sortKey = opts.sortKey || null;
    this.sortDir = opts.sortDir || 1;
    this.open = {};
    this.all = opts.rows;
    this.rows = opts.rows.slice();
    this.build();
    this.applySort();
    this.render();
  }
  DataTable.prototype.column = function (key) {
    for (var i = 0; i < this.opts.columns.length; i++) if (this.opts.columns[i].key === key) return this.opts.columns[i];
    return null;
  };
  DataTable.prototype.build = function () {
    var self = this;
    var headRow = el("tr");
    if (this.opts.expand) headRow.appendChild(el("th", {"aria-label": "expand"}));
    this.heads = {};
    this.opts.columns.forEach(function (col) {
      var numeric = col.kind && col.kind !== "text" && col.kind !== "node";
      var th = el("th", {"class": numeric ? "num" : null, scope: "col", "data-key": col.key});
      if (col.sortable === false) th.textContent = col.label;
      else th.appendChild(el("button", {"class": "sort", type: "button", title: "sort by " + col.label,
        onclick: function () { self.sortBy(col.key); }}, [col.label]));
      self.heads[col.key] = th;
      headRow.appendChild(th);
    });
    this.tbody = el("tbody");
    this.table = el("table", {"class": "data"}, [el("thead", null, [headRow]), this.tbody]);
    this.info = el("span");
    this.prev = el("button", {type: "button", onclick: function () { self.go(self.page - 1); }}, ["\u2039 prev"]);
    this.next = el("button", {type: "button", onclick: function () { self.go(self.page + 1); }}, ["next \u203a"]);
    this.pager = el("div", {"class": "pager"}, [this.info, this.prev, this.next]);
    this.root.appendChild(this.table);
    this.root.appendChild(this.pager);
  };
  DataTable.prototype.value = function (col, row) { return col.value ? col.value(row) : row[col.key]; };
  DataTable.prototype.applySort = function () {
    var self = this;
    Object.keys(this.heads).forEach(function (key) { self.heads[key].removeAttribute("aria-sort"); });
    if (!this.sortKey) return;
    var col = this.column(this.sortKey);
    if (!col) return;
    var dir = this.sortDir;
    this.heads[col.key].setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    var keyed = this.rows.map(function (row, i) { return [self.value(col, row), i, row]; });
    keyed.sort(function (a, b) {
      var x = a[0], y = b[0];
      var xn = x === null || x === undefined, yn = y === null || y === undefined;
      if (xn || yn) return xn && yn ? a[1] - b[1] : xn ? 1 : -1;  // no value: always last
      if (x < y) return -dir;
      if (x > y) return dir;
      return a[1] - b[1];
    });
    this.rows = keyed.map(function (k) { return k[2]; });
  };
  DataTable.prototype.sortBy = function (key) {
    if (this.sortKey === key) this.sortDir = -this.sortDir;
    else {
      this.sortKey = key;
      var col = this.column(key);
      this.sortDir = col && col.kind && col.kind !== "text" ? -1 : 1;
    }
    this.applySort();
    this.page = 0;
    this.render();
  };
  DataTable.prototype.setRows = function (rows) {
    this.all = rows;
    this.open = {};
    this.filter(this.keep);
  };
  DataTable.prototype.filter = function (keep) {
    this.keep = keep || null;
    this.rows = keep ? this.all.filter(keep) : this.all.slice();
    this.applySort();
    this.page = 0;
    this.render();
  };
  DataTable.prototype.go = function (page) {
    var pages = Math.max(1, Math.ceil(this.rows.length / this.pageSize));
    this.page = Math.max(0, Math.min(pages - 1, page));
    this.render();
  };
  DataTable.prototype.cell = function (col, row) {
    var v = this.value(col, row);
    switch (col.kind) {
      case "rate": return el("td", {"class": "num"}, [rate(v)]);
      case "bar": return el("td", {"class": "num"}, [bar(v)]);
      case "defined": return el("td", {"class": "num"}, [defined(v)]);
      case "definedBar": return el("td", {"class": "num"}, [bar(v, defined)]);
      case "money": return el("td", {"class": "num"}, [money(v)]);
      case "num": return el("td", {"class": "num"}, [count(v)]);
      case "delta": return el("td", {"class": "num"}, [deltaCell(v)]);
      case "node": return el("td", null, [col.cell(row)]);
      default: return el("td", {"class": col.mono ? "mono" : null}, [v === null || v === undefined ? "\u2013" : String(v)]);
    }
  };
  DataTable.prototype.render = function () {
    var self = this;
    var start = this.page * this.pageSize;
    var rows = this.rows.slice(start, start + this.pageSize);
    var fragment = document.createDocumentFragment();
    var width = this.opts.columns.length + (this.opts.expand ? 1 : 0);
    if (!rows.length) fragment.appendChild(el("tr", null, [el("td", {colspan: width, "class": "empty", text: this.opts.empty || "nothing to show"})]));
    rows.forEach(function (row) {
      var id = self.opts.rowId(row);
      var tr = el("tr", {"data-row": id});
      var detail = null;
      if (self.opts.expand) {
        var isOpen = !!self.open[id];
        var toggle = el("button", {"class": "toggle", type: "button", "aria-expanded": isOpen ? "true" : "false",
          title: "show details"}, [isOpen ? "\u25be" : "\u25b8"]);
        tr.className = "expandable";
        tr.appendChild(el("td", null, [toggle]));
        tr.addEventListener("click", function (event) {
          if (event.target.closest("a, select, input")) return;
          self.open[id] = !self.open[id];
          self.render();
        });
        if (isOpen) detail = el("tr", {"class": "detail"}, [el("td", {colspan: width}, [self.opts.expand(row)])]);
      }
      self.opts.columns.forEach(function (col) { tr.appendChild(self.cell(col, row)); });
      fragment.appendChild(tr);
      if (detail) fragment.appendChild(detail);
    });
    this.tbody.replaceChildren(fragment);
    var n = this.rows.length;
    this.info.textContent = n ? (start + 1) + "\u2013" + Math.min(n, start + this.pageSize) + " of " + count(n) : "0 rows";
    this.prev.disabled = this.page === 0;
    this.next.disabled = start + this.pageSize >= n;
    this.pager.hidden = n <= this.pageSize;
  };

  // ---------------------------------------------------------------- episode details
  function traceLink(traceId) {
    if (!traceId) return document.createTextNode("\u2013");
    var template = DATA.trace_url;
    if (template) {
      var url = template.replace("{trace_id}", encodeURIComponent(traceId));
      if (/^https?:\/\//i.test(url)) {
        return el("a", {href: url, target: "_blank", rel: "noopener noreferrer", "class": "mono"}, [traceId]);
      }
    }
    return el("span", {"class": "mono"}, [traceId]);
  }

  function allowed(values) {
    var optional = values.indexOf("") >= 0;
    var shown = values.filter(function (v) { return v !== ""; }).map(json);
    var text = !shown.length ? "(left out)" : shown.length === 1 ? shown[0] : "one of " + shown.join(" | ");
    return optional && shown.length ? text + " (or left out)" : text;
  }
  function expected(gold) {
    if (gold === undefined) return "(not expected)";
    if (gold && typeof gold === "object" && !Array.isArray(gold) && Object.keys(gold).length === 1 && Array.isArray(gold.any_of)) {
      return allowed(gold.any_of);
    }
    return json(gold);
  }

  function callCard(row, diffs) {
    var got = row.got, gold = row.gold;
    var status = !got ? "missing" : !gold ? "spurious" : row.exact ? "match" : "differs";
    var tool = (got || gold).tool;
    var mine = (row.arg_diffs || []).map(function (i) { return diffs[i]; }).filter(Boolean);
    var byArg = {};
    mine.forEach(function (d) { byArg[d.arg] = d; });
    var names = [];
    var seen = {};
    [gold && gold.args, got && got.args].forEach(function (args) {
      if (!args) return;
      Object.keys(args).forEach(function (name) { if (!seen[name]) { seen[name] = 1; names.push(name); } });
    });
    mine.forEach(function (d) { if (!seen[d.arg]) { seen[d.arg] = 1; names.push(d.arg); } });
    var body = el("tbody");
    names.forEach(function (name) {
      var d = byArg[name];
      var gotValue = got ? (Object.prototype.hasOwnProperty.call(got.args || {}, name) ? json(got.args[name]) : "(absent)") : "\u2013";
      var goldArgs = gold ? gold.args || {} : {};
      var expValue = !gold ? "\u2013" : Object.prototype.hasOwnProperty.call(goldArgs, name) ? expected(goldArgs[name])
        : d && d.kind !== "unexpected" && d.expected !== null && d.expected !== undefined ? expectedOf(d) : "(not expected)";
      body.appendChild(el("tr", {"class": d ? "diff" : null, "data-arg": name}, [
        el("td", null, [name]),
        el("td", {"class": "got"}, [gotValue]),
        el("td", {"class": "expected"}, [expValue]),
        el("td", {"class": "num weight"}, [d ? String(d.weight) : ""]),
        el("td", {"class": "kind"}, [d ? d.kind.replace("_", " ") : ""]),
      ]));
    });
    var table = names.length ? el("table", null, [
      el("thead", null, [el("tr", null, ["argument", "got", "expected", "weight", "difference"].map(function (h) { return el("th", {text: h}); }))]),
      body]) : el("div", {"class": "empty", text: "no arguments"});
    return el("div", {"class": "call " + status, "data-status": status}, [
      el("div", {"class": "head"}, [pill(status), el("span", {"class": "tool", text: tool})]),
      table]);
  }
  function expectedOf(d) {
    return Array.isArray(d.expected) ? allowed(d.expected) : json(d.expected);
  }

  function legacyCalls(ep) {
    var rows = [];
    (ep.arg_diffs || []).forEach(function (d, i) {
      var got = {};
      if (d.kind !== "missing") got[d.arg] = d.got;
      rows.push({got: {tool: d.tool, args: got}, gold: {tool: d.tool, args: {}}, exact: false, arg_diffs: [i]});
    });
    (ep.missing_calls || []).forEach(function (c) { rows.push({got: null, gold: c, exact: false, arg_diffs: []}); });
    (ep.spurious_calls || []).forEach(function (c) { rows.push({got: c, gold: null, exact: false, arg_diffs: []}); });
    return rows;
  }

  function costOf(ep) {
    if (!Array.isArray(ep.cost)) return ep.cost || {};
    var cost = {};
    (DATA.cost_fields || []).forEach(function (name, i) { cost[name] = ep.cost[i]; });
    return cost;
  }
  function goldOf(row) {
    return typeof row.gold === "number" ? (DATA.gold_calls || [])[row.gold] : row.gold;
  }

  function episodeDetail(ep) {
    var rows = (ep.calls || legacyCalls(ep)).map(function (r) {
      return {got: r.got, gold: goldOf(r), turn: r.turn, exact: r.exact, arg_diffs: r.arg_diffs};
    });
    var diffs = ep.arg_diffs || [];
    var cost = costOf(ep);
    var meta = el("dl", {"class": "meta"}, [
      el("dt", {text: "trace"}), el("dd", null, [traceLink(ep.trace_id)]),
      el("dt", {text: "root span"}), el("dd", {"class": "mono", text: ep.root_span_id || "\u2013"}),
      el("dt", {text: "service"}), el("dd", {text: ep.service || "\u2013"}),
      el("dt", {text: "revision"}), el("dd", {text: ep.revision || 0}),
    ]);
    if (ep.group !== undefined && ep.group !== null && DATA.groups) {
      meta.appendChild(el("dt", {text: "run"}));
      meta.appendChild(el("dd", {text: DATA.groups[ep.group] || "\u2013"}));
    }
    var tokens = el("dl", {"class": "meta"}, [
      el("dt", {text: "input tokens"}), el("dd", {text: count(cost.input_tokens)}),
      el("dt", {text: "cached input"}), el("dd", {text: count(cost.cached_input_tokens)}),
      el("dt", {text: "output tokens"}), el("dd", {text: count(cost.output_tokens)}),
      el("dt", {text: "reasoning tokens"}), el("dd", {text: count(cost.reasoning_tokens)}),
      el("dt", {text: "latency"}), el("dd", {text: cost.latency_s === undefined ? "\u2013" : Number(cost.latency_s).toFixed(3) + " s"}),
      el("dt", {text: "dollars"}), el("dd", {"data-field": "dollars", text: money(ep.dollars)}),
    ]);
    var calls = el("div", {"class": "calls"});
    var turned = rows.some(function (r) { return r.turn !== null && r.turn !== undefined; });
    var lastTurn = null;
    rows.forEach(function (r) {
      if (turned && r.turn !== lastTurn) {
        lastTurn = r.turn;
        calls.appendChild(el("h4", {text: "turn " + (Number(r.turn) + 1)}));
      }
      calls.appendChild(callCard(r, diffs));
    });
    if (!rows.length) calls.appendChild(el("div", {"class": "empty", text: "no call expected and none made"}));
    var missing = rows.filter(function (r) { return !r.got; }).length;
    var spurious = rows.filter(function (r) { return !r.gold; }).length;
    return el("div", {"class": "episode", "data-trace": ep.trace_id || ""}, [
      el("p", {"class": "explanation"}, [pill(ep.success ? "pass" : "fail"), " ", ep.explanation || ""]),
      el("div", {"class": "grid2"}, [el("div", null, [el("h4", {text: "episode"}), meta]), el("div", null, [el("h4", {text: "tokens and dollars"}), tokens])]),
      el("h4", {text: "calls, paired as the matcher paired them (" + missing + " missing, " + spurious + " spurious)"}),
      calls,
    ]);
  }

  // ---------------------------------------------------------------- the run page
  // A task's verdict from its trials (the report's per_task[t].verdict; older reports: from
  // successes and episodes).
  var VERDICTS = ["pass", "flaky", "fail"];
  function verdictOf(r) {
    if (r.verdict) return r.verdict;
    if (!r.episodes) return "fail";
    return r.successes === r.episodes ? "pass" : r.successes ? "flaky" : "fail";
  }
  function statusFilterControl(onChange, labels) {
    var select = el("select", {"aria-label": "status", onchange: function () { onChange(select.value); }},
      labels.map(function (pair) { return el("option", {value: pair[0], text: pair[1]}); }));
    return select;
  }

  // The figures of a cut (a slice or a task), as columns.
  var FIGURE_COLUMNS = [
    {key: "success_rate", label: "success", kind: "bar"},
    {key: "precision", label: "precision", kind: "defined"},
    {key: "recall", label: "recall", kind: "defined"},
    {key: "f1", label: "F1", kind: "definedBar"},
    {key: "exact_match", label: "exact", kind: "rate"},
  ];

  // Success and exact match are one figure when they agree everywhere: shown once.
  function figureColumns(rows) {
    var same = rows.every(function (r) { return r.exact_match === r.success_rate; });
    return FIGURE_COLUMNS.filter(function (c) { return !(same && c.key === "exact_match"); })
      .map(function (c) { return same && c.key === "success_rate" ? {key: c.key, label: "success (= exact)", kind: c.kind} : c; });
  }

  function runPage() {
    var byTask = {};
    DATA.episodes.forEach(function (ep, i) {
      ep._i = i;
      (byTask[ep.task_id] = byTask[ep.task_id] || []).push(ep);
    });
    var runs = DATA.runs || [];
    var run = runs.length ? 0 : null;  // runs that must not be pooled: one at a time
    // pass@k / pass^k: each run has its own k (from its own trials); the pooled view has DATA.k
    function kOf(r) { return (r === null ? DATA.k : runs[r].k) || 1; }
    var showK = kOf(null) > 1 || runs.some(function (r, i) { return kOf(i) > 1; });
    var slicesRoot = document.getElementById("slices");
    var slicesTable = null;
    if (slicesRoot && DATA.slices.length) {
      slicesTable = new DataTable(slicesRoot, {
        rows: run === null ? DATA.slices : runs[run].slices, rowId: function (r) { return r.slice; }, sortKey: "slice",
        columns: [{key: "slice", label: "slice", kind: "text"}, {key: "episodes", label: "episodes", kind: "num"}]
          .concat(figureColumns(DATA.slices))});
    }
    var tasksRoot = document.getElementById("tasks");
    if (!tasksRoot) return;
    var columns = [
      {key: "task_id", label: "task", kind: "text", mono: true},
      {key: "verdict", label: "verdict", kind: "node", value: function (r) { return VERDICTS.indexOf(verdictOf(r)); },
        cell: function (r) { return pill(verdictOf(r)); }},
      {key: "slice", label: "slice", kind: "text"},
      {key: "episodes", label: "trials", kind: "num"},
    ].concat(figureColumns(DATA.tasks.concat.apply(DATA.tasks, runs.map(function (r) { return r.tasks; }))));
    if (showK) {
      columns.push({key: "pass_at_k", label: "pass@" + kOf(run), kind: "rate"});
      columns.push({key: "pass_hat_k", label: "pass^" + kOf(run), kind: "rate"});
    }
    function relabelK() {
      [["pass_at_k", "pass@"], ["pass_hat_k", "pass^"]].forEach(function (pair) {
        var col = table.column(pair[0]);
        if (!col) return;
        col.label = pair[1] + kOf(run);
        var button = table.heads[pair[0]].querySelector("button");
        (button || table.heads[pair[0]]).textContent = col.label;
        if (button) button.title = "sort by " + col.label;
      });
    }
    columns.push({key: "dollars", label: "dollars", kind: "money"});
    var episodeColumns = [
      {key: "_i", label: "episode", kind: "num", value: function (e) { return e._i + 1; }},
      {key: "trace_id", label: "trace", kind: "node", value: function (e) { return e.trace_id; },
        cell: function (e) { return traceLink(e.trace_id); }},
      {key: "label", label: "result", kind: "node", value: function (e) { return e.success ? 1 : 0; },
        cell: function (e) { return pill(e.success ? "pass" : "fail"); }},
      {key: "f1", label: "F1", kind: "defined"},
      {key: "tokens", label: "tokens", kind: "num", value: function (e) { var c = costOf(e); return (c.input_tokens || 0) + (c.output_tokens || 0); }},
      {key: "dollars", label: "dollars", kind: "money"},
      {key: "explanation", label: "explanation", kind: "text"},
    ];
    if (DATA.groups && DATA.groups.length) {
      episodeColumns.splice(3, 0, {key: "group", label: "run", kind: "text", value: function (e) { return DATA.groups[e.group]; }});
    }
    var table = new DataTable(tasksRoot, {
      rows: run === null ? DATA.tasks : runs[run].tasks, rowId: function (r) { return "task:" + r.task_id; }, pageSize: 50,
      columns: columns, empty: "no task matches the filters",
      expand: function (task) {
        var box = el("div", {"class": "episodes"});
        var eps = (byTask[task.task_id] || []).filter(function (e) { return run === null || e.group === run; });
        box.appendChild(el("h4", {text: eps.length + " episode" + (eps.length === 1 ? "" : "s") + " of " + task.task_id}));
        new DataTable(box, {rows: eps, rowId: function (e) { return "ep:" + e._i; }, pageSize: 20,
          columns: episodeColumns, expand: episodeDetail});
        return box;
      },
    });
    var state = {slice: "", status: "", text: ""};
    function apply() {
      var text = state.text.toLowerCase();
      table.filter(function (r) {
        if (state.slice && r.slice !== state.slice) return false;
        if (state.status && verdictOf(r) !== state.status) return false;
        if (text && String(r.task_id).toLowerCase().indexOf(text) < 0) return false;
        return true;
      });
    }
    var controls = document.getElementById("task-controls");
    var sliceNames = [];
    DATA.tasks.forEach(function (t) { if (t.slice !== null && t.slice !== undefined && sliceNames.indexOf(t.slice) < 0) sliceNames.push(t.slice); });
    sliceNames.sort();
    if (controls) {
      if (runs.length) {
        var runSelect = el("select", {id: "run-filter", "aria-label": "run", onchange: function () {
          run = runSelect.value === "" ? null : Number(runSelect.value);
          table.setRows(run === null ? DATA.tasks : runs[run].tasks);
          relabelK();
          if (slicesTable) slicesTable.setRows(run === null ? DATA.slices : runs[run].slices);
          var label = document.getElementById("run-shown");
          if (label) label.textContent = run === null ? "all runs pooled (not comparable)" : runs[run].label;
        }}, runs.map(function (r, i) { return el("option", {value: String(i), text: r.label}); })
          .concat([el("option", {value: "", text: "all runs pooled (not comparable)"})]));
        controls.appendChild(el("label", null, ["run", runSelect]));
      }
      if (sliceNames.length) {
        var sliceSelect = el("select", {id: "slice-filter", "aria-label": "slice", onchange: function () { state.slice = sliceSelect.value; apply(); }},
          [el("option", {value: "", text: "all slices"})].concat(sliceNames.map(function (s) { return el("option", {value: s, text: s}); })));
        controls.appendChild(el("label", null, ["slice", sliceSelect]));
      }
      var statusSelect = statusFilterControl(function (v) { state.status = v; apply(); },
        [["", "all tasks"], ["pass", "pass (every trial)"], ["flaky", "flaky (some trials)"], ["fail", "fail (no trial)"]]);
      statusSelect.id = "status-filter";
      controls.appendChild(el("label", null, ["status", statusSelect]));
      var search = el("input", {type: "search", id: "task-search", placeholder: "task id contains\u2026",
        oninput: function () { state.text = search.value; apply(); }});
      controls.appendChild(search);
    }
    comparisonTables();
  }

  function comparisonTable(root, comparison) {
    var table = new DataTable(root, {
      rows: comparison.tasks, rowId: function (r) { return "cmp:" + r.task_id; }, pageSize: 50,
      empty: "no shared task",
      columns: [
        {key: "task_id", label: "task", kind: "text", mono: true},
        {key: "status", label: "change", kind: "node", value: function (r) { return ["regressed", "improved", "unchanged"].indexOf(r.status); },
          cell: function (r) { return pill(r.status === "unchanged" ? "neutral" : r.status, r.status); }},
        {key: "verdicts", label: "verdict", kind: "node", value: function (r) { return VERDICTS.indexOf(verdictOf(r.base)) * 3 + VERDICTS.indexOf(verdictOf(r.candidate)); },
          cell: function (r) { return el("span", null, [pill(verdictOf(r.base)), " \u2192 ", pill(verdictOf(r.candidate))]); }},
        {key: "slice", label: "slice", kind: "text"},
        {key: "base_success", label: "base success", kind: "rate", value: function (r) { return r.base.success_rate; }},
        {key: "cand_success", label: "candidate success", kind: "rate", value: function (r) { return r.candidate.success_rate; }},
        {key: "success_delta", label: "\u0394 success", kind: "delta"},
        {key: "base_f1", label: "base F1", kind: "rate", value: function (r) { return r.base.f1; }},
        {key: "cand_f1", label: "candidate F1", kind: "rate", value: function (r) { return r.candidate.f1; }},
        {key: "f1_delta", label: "\u0394 F1", kind: "delta"},
      ]});
    return table;
  }

  function comparisonTables() {
    (DATA.comparisons || []).forEach(function (comparison, i) {
      var root = document.getElementById("comparison-" + i);
      if (root) comparisonTable(root, comparison);
    });
  }

  // ---------------------------------------------------------------- BFCL
  function bfclPage() {
    var root = document.getElementById("failing");
    if (!root) return;
    var table = new DataTable(root, {
      rows: DATA.entries, rowId: function (r) { return (r.model || "") + "/" + r.id; }, pageSize: 50,
      empty: "no failing entry",
      columns: [
        {key: "id", label: "entry", kind: "text", mono: true},
        {key: "model", label: "model", kind: "text"},
        {key: "category", label: "category", kind: "text"},
        {key: "error_type", label: "error type", kind: "text", mono: true},
        {key: "message", label: "message", kind: "text", value: function (r) { return (r.errors || [])[0] || ""; }},
      ],
      expand: function (r) {
        var box = el("div");
        box.appendChild(el("h4", {text: "messages"}));
        var list = el("ul");
        (r.errors || []).forEach(function (m) { list.appendChild(el("li", {"class": "mono", text: typeof m === "string" ? m : json(m)})); });
        box.appendChild(list);
        Object.keys(r.detail || {}).forEach(function (key) {
          box.appendChild(el("h4", {text: key}));
          box.appendChild(el("pre", {"class": "mono explanation", text: typeof r.detail[key] === "string" ? r.detail[key] : JSON.stringify(r.detail[key], null, 1)}));
        });
        return box;
      }});
    var controls = document.getElementById("failing-controls");
    if (controls && DATA.categories.length) {
      var select = el("select", {id: "category-filter", "aria-label": "category", onchange: function () {
        var v = select.value;
        table.filter(v ? function (r) { return r.category === v; } : null);
      }}, [el("option", {value: "", text: "all categories"})].concat(DATA.categories.map(function (c) { return el("option", {value: c, text: c}); })));
      controls.appendChild(el("label", null, ["category", select]));
    }
  }

  // ---------------------------------------------------------------- live refresh (serve)
  function liveRefresh() {
    var box = document.getElementById("auto-refresh");
    if (!box) return;
    var seconds = Number(box.getAttribute("data-seconds")) || 10;
    setInterval(function () {
      var anyOpen = document.querySelector("tr.detail");
      if (box.checked && !anyOpen && !document.hidden) location.reload();
    }, seconds * 1000);
  }

  if (DATA.kind === "run") runPage();
  else if (DATA.kind === "compare") {
    var root = document.getElementById("comparison");
    if (root) comparisonTable(root, DATA.comparison);
  } else if (DATA.kind === "bfcl") bfclPage();
  liveRefresh();
  window.__ekReadyAt = performance.now();  // bench/report_page.py: time until interactive
  document.documentElement.setAttribute("data-ready", "1");
})();
