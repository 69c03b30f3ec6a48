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

  var NA = "n/a";  // a figure the report leaves undefined (null)
  function rate(v) { return v === null || v === undefined ? NA : Number(v).toFixed(3); }
  // precision, recall, F1: null where undefined (no call predicted / expected)
  function defined(v) { return v === null || v === undefined ? NA : Number(v).toFixed(3); }
  function signed(v) {
    if (v === null || v === undefined) return NA;
    return (v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1") + Math.abs(v).toFixed(3);
  }
  function money(v) {
    if (v === null || v === undefined) return NA;
    if (v < 0) return "\u2212" + money(-v);
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
  // Open one row (by id) and show the page it is on; false when no shown row has that id.
  DataTable.prototype.reveal = function (id) {
    for (var i = 0; i < this.rows.length; i++) {
      if (this.opts.rowId(this.rows[i]) === id) {
        this.open[id] = true;
        this.go(Math.floor(i / this.pageSize));
        return true;
      }
    }
    return false;
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
          if (event.target.closest("a, select, input, summary, .fold")) return;
          self.open[id] = !self.open[id];
          if (self.opts.onToggle) self.opts.onToggle(id, self.open[id]);
          self.render();
        });
        if (isOpen) detail = el("tr", {"class": "detail"}, [el("td", {colspan: width}, [self.opts.expand(row)])]);
      }
      if (self.opts.onRow) {
        tr.className = "clickable";
        tr.tabIndex = 0;
        tr.title = "list the runs behind this row";
        tr.addEventListener("click", function () { self.opts.onRow(row); });
        tr.addEventListener("keydown", function (event) { if (event.key === "Enter") self.opts.onRow(row); });
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
    var turnVerdicts = Array.isArray(ep.turns) && ep.turns.length ? el("ol", {"class": "turns"},
      ep.turns.map(function (t) {
        return el("li", {"data-turn": t.turn, "data-status": t.success ? "pass" : "fail"}, [
          pill(t.success ? "pass" : "fail"), " ",
          el("strong", {text: "turn " + t.turn}), " ",
          el("span", {"class": "note", text: count(t.calls) + " call" + (t.calls === 1 ? "" : "s") + " made, " +
                      count(t.gold_calls) + " gold: "}),
          el("span", {"class": "why", text: t.explanation || ""})]);
      })) : null;
    var missing = rows.filter(function (r) { return !r.got; }).length;
    var spurious = rows.filter(function (r) { return !r.gold; }).length;
    return el("div", {"class": "episode", "data-trace": ep.trace_id || ""}, [
      el("p", {"class": "explanation"}, [pill(ep.success ? "pass" : "fail"), " ", ep.explanation || ""]),
      el("div", {"class": "grid2"}, [el("div", null, [el("h4", {text: "episode"}), meta]), el("div", null, [el("h4", {text: "tokens and dollars"}), tokens])]),
      turnVerdicts ? el("h4", {text: "turn by turn (each user turn against its gold calls)"}) : null,
      turnVerdicts,
      el("h4", {text: "calls, paired as the matcher paired them (" + missing + " missing, " + spurious + " spurious)"}),
      calls,
      el("h4", {text: "transcript"}),
      Array.isArray(ep.transcript) ? transcriptView(ep.transcript)
        : el("div", {"class": "empty", text: "not in this report (score with --transcripts to see what the run did)"}),
    ]);
  }

  // ---------------------------------------------------------------- transcripts
  var FOLD = 600;  // longer values are folded: the first characters, and a button for the rest
  function valueText(v) {
    if (typeof v === "string") return v;
    try { return JSON.stringify(v, null, 2); } catch (e) { return String(v); }
  }
  function folded(v, label) {
    var text = valueText(v);
    var box = el("div", {"class": "value"});
    if (label) box.appendChild(el("div", {"class": "label", text: label}));
    var pre = el("pre", {"class": "value-text"});
    box.appendChild(pre);
    if (text.length <= FOLD) { pre.textContent = text; return box; }
    var open = false;
    var button = el("button", {type: "button", "class": "fold"});
    function show() {
      pre.textContent = open ? text : text.slice(0, FOLD) + "\u2026";
      button.textContent = open ? "fold" : "show all " + count(text.length) + " characters";
    }
    button.addEventListener("click", function (event) { event.stopPropagation(); open = !open; show(); });
    show();
    box.appendChild(button);
    return box;
  }
  var TURN_LABEL = {user: "user", model: "model", tool: "tool", error: "error", answer: "final answer"};
  function ms(v) { return v === null || v === undefined ? "\u2013" : v >= 1000 ? (v / 1000).toFixed(2) + " s" : Number(v).toFixed(0) + " ms"; }
  function transcriptView(entries) {
    var list = el("ol", {"class": "transcript"});
    entries.forEach(function (t) {
      var kind = TURN_LABEL[t.kind] ? t.kind : "model";
      var who = el("div", {"class": "who"}, [el("strong", {text: TURN_LABEL[kind]})]);
      if (t.name) who.appendChild(el("span", {"class": "mono", text: t.name}));
      who.appendChild(el("span", {text: "at " + ms(t.start_ms) + (t.duration_ms ? ", " + ms(t.duration_ms) : "")}));
      if (t.span_id) who.appendChild(el("span", {"class": "mono", title: "span id", text: "span " + t.span_id}));
      var item = el("li", {"class": kind, "data-kind": kind}, [who]);
      if (t.text !== undefined && t.text !== null) item.appendChild(folded(t.text));
      (t.calls || []).forEach(function (c) {
        item.appendChild(folded(c.args === undefined ? {} : c.args, "requests " + c.name + (c.id ? " (" + c.id + ")" : "")));
      });
      if (t.kind === "tool") {
        item.appendChild(t.args === undefined ? el("div", {"class": "note", text: "arguments not recorded"}) : folded(t.args, "arguments"));
        if (t.output !== undefined) item.appendChild(folded(t.output, "output"));
        else item.appendChild(el("div", {"class": "note", text: "no output recorded"}));
      }
      if (t.recorded === false) item.appendChild(el("div", {"class": "note", text: "the answer of this call was not recorded"}));
      if (t.error !== undefined && t.error !== null) item.appendChild(folded(t.error, "error"));
      list.appendChild(item);
    });
    return list;
  }

  // ---------------------------------------------------------------- the run page
  // A task's verdict from its trials (the report's per_task[t].verdict; older reports: from
  // successes and episodes).
  var VERDICTS = ["pass", "flaky", "fail"];
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

  // ---------------------------------------------------------------- verdicts, failures, CSV, URL state
  function verdictOf(t) {
    if (t.verdict === "pass" || t.verdict === "flaky" || t.verdict === "fail") return t.verdict;
    var n = t.episodes, k = t.successes;
    if (typeof n !== "number" || typeof k !== "number" || n <= 0) return null;
    return k >= n ? "pass" : k > 0 ? "flaky" : "fail";
  }
  var KIND_LABEL = {};
  (DATA.failure_kinds || []).forEach(function (pair) { KIND_LABEL[pair[0]] = pair[1]; });
  function kindLabel(kind) { return KIND_LABEL[kind] || String(kind); }
  function failureText(f) {
    var where = f[2] !== null && f[2] !== undefined ? f[1] + "." + f[2] : f[1];
    var text = kindLabel(f[0]) + (where ? ": " + where : "");
    if (f[0] === "wrong_tool" && f[3]) text += " (called " + f[3] + ")";
    return text;
  }

  // Spreadsheets run cells that start with = + - @ as formulas: such text gets a leading '.
  function csvCell(v) {
    if (v === null || v === undefined) return "";
    var text = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
    if (typeof v === "string" && /^[=+\-@\t\r]/.test(text)) text = "'" + text;
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  function csvText(columns, rows) {
    var lines = [columns.map(function (c) { return csvCell(c[0]); }).join(",")];
    rows.forEach(function (row) { lines.push(columns.map(function (c) { return csvCell(c[1](row)); }).join(",")); });
    return lines.join("\r\n") + "\r\n";
  }
  function download(name, text) {
    var url = URL.createObjectURL(new Blob([text], {type: "text/csv;charset=utf-8"}));
    var a = el("a", {href: url, download: name});
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }
  function csvButton(id, label, make) {
    return el("button", {type: "button", "class": "csv", id: id, title: "download the rows shown, as CSV (made in the page)",
      onclick: function () { var made = make(); download(made[0], made[1]); }}, [label]);
  }

  // The filters and the open episode, in the fragment: #kind=wrong_value&tool=refund&ep=3
  var STATE_KEYS = ["run", "result", "verdict", "kind", "tool", "arg", "slice", "model", "task", "q", "ep"];
  function readState() {
    var state = {};
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    STATE_KEYS.forEach(function (key) { var v = params.get(key); state[key] = v === null ? "" : v; });
    return state;
  }
  function writeState(state) {
    var params = new URLSearchParams();
    STATE_KEYS.forEach(function (key) { if (state[key] !== "" && state[key] !== undefined && state[key] !== null) params.set(key, state[key]); });
    var text = params.toString();
    try { history.replaceState(null, "", text ? "#" + text : location.pathname + location.search); }
    catch (e) { /* some file: pages refuse: the view still works */ }
  }

  // ---------------------------------------------------------------- the run page
  function runPage() {
    var STATE = readState();
    var taskRows = {};
    DATA.tasks.forEach(function (t) { taskRows[t.task_id] = t; });
    var runs = DATA.runs || [];
    var runTaskRows = runs.map(function (r) {
      var m = {};
      r.tasks.forEach(function (t) { m[t.task_id] = t; });
      return m;
    });
    var byTask = {};
    DATA.episodes.forEach(function (ep, i) {
      ep._i = i;
      (byTask[ep.task_id] = byTask[ep.task_id] || []).push(ep);
    });
    function taskOf(ep) {
      if (runs.length && ep.group !== null && ep.group !== undefined && runTaskRows[ep.group]) {
        return runTaskRows[ep.group][ep.task_id] || taskRows[ep.task_id] || {};
      }
      return taskRows[ep.task_id] || {};
    }
    function modelOf(ep) {
      return DATA.models && DATA.models.length && ep.group !== null && ep.group !== undefined ? DATA.models[ep.group] : null;
    }
    var run = runs.length ? 0 : null;  // runs that must not be pooled: one at a time
    if (runs.length && STATE.run !== "") run = STATE.run === "all" ? null : Math.max(0, Math.min(runs.length - 1, Number(STATE.run) || 0));
    function kOf(r) { return (r === null ? DATA.k : runs[r].k) || 1; }
    var showK = kOf(null) > 1 || runs.some(function (r, i) { return kOf(i) > 1; });

    // ---- every run, filterable
    var episodesRoot = document.getElementById("episodes");
    var episodeTable = null;
    var episodeControls = {};
    function keepEpisode(ep) {
      var s = STATE;
      if (run !== null && runs.length && ep.group !== run) return false;
      if (s.result === "pass" && !ep.success) return false;
      if (s.result === "fail" && ep.success) return false;
      if (s.verdict && verdictOf(taskOf(ep)) !== s.verdict) return false;
      if (s.slice && (taskOf(ep).slice || "") !== s.slice) return false;
      if (s.model && modelOf(ep) !== s.model) return false;
      if (s.task && ep.task_id !== s.task) return false;
      if (s.kind || s.tool || s.arg) {
        var hit = (ep.failures || []).some(function (f) {
          return (!s.kind || f[0] === s.kind) && (!s.tool || f[1] === s.tool) && (!s.arg || f[2] === s.arg);
        });
        if (!hit) return false;
      }
      if (s.q) {
        var q = s.q.toLowerCase();
        var hay = [ep.task_id, ep.explanation, ep.trace_id].concat((ep.failures || []).map(failureText)).join("\n").toLowerCase();
        if (hay.indexOf(q) < 0) return false;
      }
      return true;
    }
    var failureColumn = {key: "failures", label: "failures", kind: "text", value: function (e) {
      return (e.failures || []).map(failureText).join("; ") || null; }};
    var allEpisodeColumns = [
      {key: "_i", label: "#", kind: "num", value: function (e) { return e._i + 1; }},
      {key: "task_id", label: "task", kind: "text", mono: true},
      {key: "label", label: "result", kind: "node", value: function (e) { return e.success ? 1 : 0; },
        cell: function (e) { return pill(e.success ? "pass" : "fail"); }},
      {key: "verdict", label: "task verdict", kind: "node", value: function (e) { return verdictOf(taskOf(e)); },
        cell: function (e) { var v = verdictOf(taskOf(e)); return v ? pill(v) : document.createTextNode("\u2013"); }},
      {key: "slice", label: "slice", kind: "text", value: function (e) { return taskOf(e).slice; }},
    ];
    if (DATA.models && DATA.models.length) allEpisodeColumns.push({key: "model", label: "model", kind: "text", value: modelOf});
    allEpisodeColumns = allEpisodeColumns.concat([
      failureColumn,
      {key: "f1", label: "F1", kind: "rate"},
      {key: "dollars", label: "dollars", kind: "money"},
    ]);
    function applyEpisodeFilters(keepOpen) {
      writeState(STATE);
      if (!episodeTable) return;
      var open = episodeTable.open;
      episodeTable.filter(keepEpisode);
      if (keepOpen) episodeTable.open = open;
      Object.keys(episodeControls).forEach(function (key) {
        var control = episodeControls[key];
        if (control.value !== STATE[key]) control.value = STATE[key];
      });
      var shown = document.getElementById("episodes-shown");
      if (shown) shown.textContent = count(episodeTable.rows.length) + " of " + count(DATA.episodes.length) + " runs";
    }
    function setFilters(changes) {
      ["kind", "tool", "arg", "task", "result", "verdict", "slice", "model", "q"].forEach(function (key) {
        if (key in changes) STATE[key] = changes[key];
      });
      applyEpisodeFilters();
      var box = document.getElementById("all-episodes");
      if (box && box.scrollIntoView) box.scrollIntoView({block: "start"});
    }
    if (episodesRoot) {
      episodeTable = new DataTable(episodesRoot, {rows: DATA.episodes, rowId: function (e) { return "ep:" + e._i; },
        pageSize: 25, columns: allEpisodeColumns, expand: episodeDetail, empty: "no run matches the filters",
        onToggle: function (id, isOpen) { STATE.ep = isOpen ? id.slice(3) : ""; writeState(STATE); }});
      var controls = document.getElementById("episode-controls");
      function select(key, label, options) {
        var control = el("select", {id: "ep-" + key, "aria-label": label, onchange: function () {
          STATE[key] = control.value; STATE.ep = ""; applyEpisodeFilters(); }},
          options.map(function (o) { return el("option", {value: o[0], text: o[1]}); }));
        episodeControls[key] = control;
        controls.appendChild(el("label", null, [label, control]));
      }
      var tools = {}, args = {}, slices = {};
      DATA.episodes.forEach(function (ep) {
        (ep.failures || []).forEach(function (f) {
          if (f[1] !== null && f[1] !== undefined) tools[f[1]] = 1;
          if (f[2] !== null && f[2] !== undefined) args[f[2]] = 1;
        });
        var sl = taskOf(ep).slice;
        if (sl !== null && sl !== undefined) slices[sl] = 1;
      });
      function options(all, keys) { return [["", all]].concat(keys.sort().map(function (k) { return [k, k]; })); }
      select("result", "result", [["", "all runs"], ["pass", "passed"], ["fail", "failed"]]);
      select("verdict", "task verdict", [["", "any"], ["pass", "pass"], ["flaky", "flaky"], ["fail", "fail"]]);
      select("kind", "failure", [["", "any"]].concat((DATA.failure_kinds || []).map(function (p) { return [p[0], p[1]]; })));
      select("tool", "tool", options("any tool", Object.keys(tools)));
      select("arg", "argument", options("any argument", Object.keys(args)));
      if (Object.keys(slices).length) select("slice", "slice", options("all slices", Object.keys(slices)));
      if (DATA.models && DATA.models.length) {
        var models = [];
        DATA.models.forEach(function (m) { if (models.indexOf(m) < 0) models.push(m); });
        select("model", "model", options("all models", models));
      }
      var taskIds = Object.keys(byTask);
      select("task", "task", options("all tasks", taskIds));
      var episodeSearch = el("input", {type: "search", id: "ep-q", placeholder: "search explanations\u2026", "aria-label": "search",
        oninput: function () { STATE.q = episodeSearch.value; STATE.ep = ""; applyEpisodeFilters(); }});
      episodeControls.q = episodeSearch;
      controls.appendChild(episodeSearch);
      controls.appendChild(el("button", {type: "button", id: "ep-clear", "class": "csv", onclick: function () {
        setFilters({kind: "", tool: "", arg: "", task: "", result: "", verdict: "", slice: "", model: "", q: ""}); }}, ["clear filters"]));
      controls.appendChild(csvButton("csv-episodes", "episodes CSV", function () {
        return ["episodes.csv", csvText(EPISODE_CSV, episodeTable.rows)];
      }));
      controls.appendChild(el("span", {"class": "note", id: "episodes-shown"}));
      applyEpisodeFilters();
      if (STATE.ep !== "") episodeTable.reveal("ep:" + STATE.ep);
    }
    var EPISODE_CSV = [
      ["episode", function (e) { return e._i + 1; }],
      ["task_id", function (e) { return e.task_id; }],
      ["trace_id", function (e) { return e.trace_id; }],
      ["root_span_id", function (e) { return e.root_span_id; }],
      ["slice", function (e) { return taskOf(e).slice; }],
      ["model", modelOf],
      ["success", function (e) { return e.success; }],
      ["exact", function (e) { return e.exact; }],
      ["f1", function (e) { return e.f1; }],
      ["input_tokens", function (e) { return costOf(e).input_tokens; }],
      ["output_tokens", function (e) { return costOf(e).output_tokens; }],
      ["latency_s", function (e) { return costOf(e).latency_s; }],
      ["dollars", function (e) { return e.dollars; }],
      ["failures", function (e) { return (e.failures || []).map(failureText).join("; "); }],
      ["explanation", function (e) { return e.explanation; }],
    ];

    // ---- why runs failed: breakdowns, each row a filter of the runs
    function breakdowns() {
      var eps = DATA.episodes.filter(function (e) { return run === null || !runs.length || e.group === run; });
      var failing = eps.filter(function (e) { return e.success === false; }).length;
      var byKind = {}, byTool = {}, byArg = {};
      function bump(map, key, ep, extra) {
        var row = map[key] = map[key] || {key: key, failures: 0, runs: {}, kinds: {}, details: {}};
        row.failures += 1;
        row.runs[ep._i] = 1;
        if (extra) extra(row);
        return row;
      }
      eps.forEach(function (ep) {
        (ep.failures || []).forEach(function (f) {
          bump(byKind, f[0], ep);
          if (f[1] !== null && f[1] !== undefined) bump(byTool, f[1], ep, function (r) { r.tool = f[1]; r.kinds[f[0]] = (r.kinds[f[0]] || 0) + 1; });
          if (f[2] !== null && f[2] !== undefined) bump(byArg, f[1] + "\u0000" + f[2], ep, function (r) {
            r.tool = f[1]; r.arg = f[2]; if (f[3]) r.details[String(f[3]).replace("_", " ")] = 1; });
        });
      });
      function rows(map) { return Object.keys(map).map(function (k) { var r = map[k]; r.n_runs = Object.keys(r.runs).length; return r; }); }
      var share = {key: "share", label: "share of failing runs", kind: "bar", value: function (r) { return failing ? r.n_runs / failing : null; }};
      function table(id, title, data, columns, filterOf) {
        var root = document.getElementById(id);
        if (!root) return;
        root.replaceChildren(el("h3", {text: title}));
        var holder = el("div");
        root.appendChild(holder);
        new DataTable(holder, {rows: data, rowId: function (r) { return id + ":" + r.key; }, pageSize: 10,
          sortKey: "failures", sortDir: -1, empty: failing ? "none" : "no run failed", columns: columns,
          onRow: function (r) { setFilters(filterOf(r)); }});
      }
      var none = {kind: "", tool: "", arg: "", task: "", result: "", verdict: "", slice: "", q: ""};
      function onlyThis(changes) { var out = {}; Object.keys(none).forEach(function (k) { out[k] = none[k]; }); Object.keys(changes).forEach(function (k) { out[k] = changes[k]; }); return out; }
      table("by-kind", "by kind", rows(byKind), [
        {key: "key", label: "kind", kind: "text", value: function (r) { return kindLabel(r.key); }},
        {key: "failures", label: "failures", kind: "num"},
        {key: "n_runs", label: "runs", kind: "num"}, share], function (r) { return onlyThis({kind: r.key}); });
      table("by-tool", "by tool", rows(byTool), [
        {key: "tool", label: "tool", kind: "text", mono: true},
        {key: "failures", label: "failures", kind: "num"},
        {key: "n_runs", label: "runs", kind: "num"},
        {key: "kinds", label: "kinds", kind: "text", sortable: false, value: function (r) {
          return Object.keys(r.kinds).map(function (k) { return kindLabel(k) + " \u00d7" + r.kinds[k]; }).join(", "); }}],
        function (r) { return onlyThis({tool: r.tool}); });
      table("by-arg", "by argument", rows(byArg), [
        {key: "arg", label: "argument", kind: "text", mono: true, value: function (r) { return r.tool + "." + r.arg; }},
        {key: "details", label: "difference", kind: "text", sortable: false, value: function (r) { return Object.keys(r.details).join(", "); }},
        {key: "failures", label: "failures", kind: "num"},
        {key: "n_runs", label: "runs", kind: "num"}],
        function (r) { return onlyThis({tool: r.tool, arg: r.arg}); });
    }
    breakdowns();

    // ---- slices (a slice's row filters the runs)
    var slicesRoot = document.getElementById("slices");
    var slicesTable = null;
    if (slicesRoot && DATA.slices.length) {
      slicesTable = new DataTable(slicesRoot, {
        rows: run === null ? DATA.slices : runs[run].slices, rowId: function (r) { return r.slice; }, sortKey: "slice",
        onRow: function (r) { setFilters({slice: r.slice}); },
        columns: [{key: "slice", label: "slice", kind: "text"}, {key: "episodes", label: "episodes", kind: "num"}]
          .concat(figureColumns(DATA.slices))});
    }

    // ---- tasks
    var tasksRoot = document.getElementById("tasks");
    if (!tasksRoot) return;
    var columns = [
      {key: "task_id", label: "task", kind: "text", mono: true},
      {key: "status", label: "verdict", kind: "node", value: function (r) { return ["fail", "flaky", "pass"].indexOf(verdictOf(r)); },
        cell: function (r) { var v = verdictOf(r); return v ? pill(v) : document.createTextNode("\u2013"); }},
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
        var v = verdictOf(r);
        if (state.slice && r.slice !== state.slice) return false;
        if (state.status === "not-pass" && v === "pass") return false;
        if (state.status && state.status !== "not-pass" && v !== state.status) return false;
        if (text && String(r.task_id).toLowerCase().indexOf(text) < 0) return false;
        return true;
      });
    }
    function showRunLabels() {
      var shownLabel = run === null ? "all runs pooled (not comparable)" : runs[run].label;
      var label = document.getElementById("run-shown");
      if (label) label.textContent = shownLabel;
      document.querySelectorAll(".run-shown").forEach(function (node) { node.textContent = shownLabel; });
    }
    var taskControls = document.getElementById("task-controls");
    var sliceNames = [];
    DATA.tasks.forEach(function (t) { if (t.slice !== null && t.slice !== undefined && sliceNames.indexOf(t.slice) < 0) sliceNames.push(t.slice); });
    sliceNames.sort();
    if (taskControls) {
      if (runs.length) {
        var runSelect = el("select", {id: "run-filter", "aria-label": "run", onchange: function () {
          run = runSelect.value === "" ? null : Number(runSelect.value);
          STATE.run = run === null ? "all" : String(run);
          table.setRows(run === null ? DATA.tasks : runs[run].tasks);
          relabelK();
          if (slicesTable) slicesTable.setRows(run === null ? DATA.slices : runs[run].slices);
          showRunLabels();
          breakdowns();
          applyEpisodeFilters();
        }}, runs.map(function (r, i) { return el("option", {value: String(i), text: r.label}); })
          .concat([el("option", {value: "", text: "all runs pooled (not comparable)"})]));
        runSelect.value = run === null ? "" : String(run);
        showRunLabels();
        var choice = document.getElementById("run-choice");
        (choice || taskControls).appendChild(el("label", null, ["run shown below", runSelect]));
      }
      if (sliceNames.length) {
        var sliceSelect = el("select", {id: "slice-filter", "aria-label": "slice", onchange: function () { state.slice = sliceSelect.value; apply(); }},
          [el("option", {value: "", text: "all slices"})].concat(sliceNames.map(function (s) { return el("option", {value: s, text: s}); })));
        taskControls.appendChild(el("label", null, ["slice", sliceSelect]));
      }
      var statusSelect = statusFilterControl(function (v) { state.status = v; apply(); },
        [["", "all tasks"], ["pass", "pass (every trial)"], ["flaky", "flaky (some trials)"], ["fail", "fail (no trial)"],
         ["not-pass", "not passing (any trial failed)"]]);
      statusSelect.id = "status-filter";
      taskControls.appendChild(el("label", null, ["verdict", statusSelect]));
      var search = el("input", {type: "search", id: "task-search", placeholder: "task id contains\u2026",
        oninput: function () { state.text = search.value; apply(); }});
      taskControls.appendChild(search);
      taskControls.appendChild(csvButton("csv-tasks", "tasks CSV", function () {
        return ["tasks.csv", csvText(TASK_CSV, table.rows)];
      }));
    }
    var TASK_CSV = [["task_id", function (t) { return t.task_id; }], ["slice", function (t) { return t.slice; }],
      ["verdict", verdictOf]].concat(["episodes", "successes", "success_rate", "precision", "recall", "f1",
      "exact_match", "pass_at_k", "pass_hat_k", "dollars"].map(function (key) { return [key, function (t) { return t[key]; }]; }));
    comparisonTables();
  }

  var CHANGE_ORDER = ["regressed", "improved", "unchanged"];
  function changeCell(r) {
    var change = r.change || "unchanged";
    if (change !== "unchanged") return pill(change);
    var both = r.candidate.success_rate === 1 ? "unchanged: passes" : r.candidate.success_rate === 0 ? "unchanged: fails" : "unchanged";
    return pill("neutral", both);
  }
  function sideBySide(r) {
    var box = el("div", {"class": "side"});
    [["base", "base"], ["candidate", "candidate"]].forEach(function (pair) {
      var col = el("div", {"class": "side-" + pair[0]});
      var ids = (r.episodes && r.episodes[pair[0]]) || [];
      col.appendChild(el("h4", {text: pair[1] + ": " + ids.length + " run" + (ids.length === 1 ? "" : "s") +
        ", success " + rate(r[pair[0]].success_rate)}));
      ids.forEach(function (i) {
        var ep = DATA.episodes[i];
        var details = el("details", {"class": "run", open: ep.success ? null : "open"}, [
          el("summary", null, [pill(ep.success ? "pass" : "fail"), " ", ep.explanation || ""])]);
        details.appendChild(episodeDetail(ep));
        col.appendChild(details);
      });
      if (!ids.length) col.appendChild(el("div", {"class": "empty", text: "no episode in this report"}));
      box.appendChild(col);
    });
    return box;
  }
  function comparisonTable(root, comparison) {
    var drill = DATA.kind === "compare" && Array.isArray(DATA.episodes);
    var columns = [
      {key: "task_id", label: "task", kind: "text", mono: true},
      {key: "change", label: "change", kind: "node", value: function (r) { return CHANGE_ORDER.indexOf(r.change); }, cell: changeCell},
      {key: "slice", label: "slice", kind: "text"},
      {key: "base_success", label: "base success", kind: "rate", value: function (r) { return r.base.success_rate; }},
      {key: "cand_success", label: "candidate success", kind: "rate", value: function (r) { return r.candidate.success_rate; }},
      {key: "success_delta", label: "\u0394 success", kind: "delta"},
      {key: "f1_delta", label: "\u0394 F1", kind: "delta"},
    ];
    if (drill) {
      columns = columns.concat([
        {key: "tokens_delta", label: "\u0394 tokens", kind: "num", value: function (r) { return r.delta.tokens; }},
        {key: "dollars_delta", label: "\u0394 dollars", kind: "money", value: function (r) { return r.delta.dollars; }},
        {key: "dps_delta", label: "\u0394 $ per solved", kind: "money", value: function (r) { return r.delta.dollars_per_success; }},
        {key: "latency_delta", label: "\u0394 latency per run", kind: "text", value: function (r) {
          var d = r.delta.latency_per_run_s; return d === null || d === undefined ? null : (d > 0 ? "+" : "") + d.toFixed(3) + " s"; }},
      ]);
    }
    return new DataTable(root, {
      rows: comparison.tasks, rowId: function (r) { return "cmp:" + r.task_id; }, pageSize: 50,
      empty: "no shared task", columns: columns, expand: drill ? sideBySide : null});
  }

  function comparisonTables() {
    (DATA.comparisons || []).forEach(function (comparison, i) {
      var root = document.getElementById("comparison-" + i);
      if (root) comparisonTable(root, comparison);
    });
  }

  // ---------------------------------------------------------------- BFCL
  function shown(v) { return v === null || v === undefined ? "\u2013" : typeof v === "string" ? JSON.stringify(v) : json(v); }
  function answerView(answer) {
    var box = el("div", {"class": "answer"});
    if (answer.kind === "multi") {
      box.appendChild(el("h4", {text: "the model's calls against the possible answer, turn by turn (a call in one and not the other is marked)"}));
      answer.turns.forEach(function (turn, i) {
        box.appendChild(el("h4", {text: "turn " + (i + 1)}));
        var pair = el("div", {"class": "answer-pair", "data-turn": i});
        [["model", "model's calls"], ["answer", "possible answer"]].forEach(function (side) {
          var col = el("div", {"class": "side-" + side[0]}, [el("div", {"class": "label", text: side[1]})]);
          turn[side[0]].forEach(function (c) {
            col.appendChild(el("div", {"class": "call-line " + (c.matched ? "matched" : "unmatched"), text: c.call}));
          });
          if (!turn[side[0]].length) col.appendChild(el("div", {"class": "empty", text: "no call"}));
          pair.appendChild(col);
        });
        box.appendChild(pair);
      });
      return box;
    }
    box.appendChild(el("h4", {text: "the model's decoded calls against the possible answer"}));
    answer.calls.forEach(function (c) {
      var body = el("tbody");
      c.args.forEach(function (a) {
        var allowed = a.allowed === null || a.allowed === undefined ? "(not in the answer)"
          : Array.isArray(a.allowed) ? a.allowed.map(function (v) { return v === "" ? "(left out)" : shown(v); }).join(" | ") : shown(a.allowed);
        body.appendChild(el("tr", {"data-arg": a.arg}, [
          el("td", {text: a.arg}),
          el("td", {"class": "got" + (a.ok ? "" : " bad"), text: a.absent ? "(absent)" : shown(a.got)}),
          el("td", {"class": "expected", text: allowed})]));
      });
      box.appendChild(el("div", {"class": "call", "data-status": c.status}, [
        el("div", {"class": "head"}, [pill(c.status === "called" ? "neutral" : c.status, c.status), el("span", {"class": "tool", text: c.tool})]),
        c.args.length ? el("table", {"class": "args"}, [el("thead", null, [el("tr", null, ["argument", "model", "possible answer"].map(function (h) { return el("th", {text: h}); }))]), body])
          : el("div", {"class": "empty", text: "no arguments"})]));
    });
    return box;
  }
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
        var box = el("div", {"class": "bfcl-entry"});
        box.appendChild(el("p", {"class": "explanation"}, [pill("fail", r.error_type || "failed"), " the checker's messages:"]));
        var list = el("ul", {"class": "messages"});
        (r.errors || []).forEach(function (m) { list.appendChild(el("li", null, [el("pre", {"class": "value-text", text: typeof m === "string" ? m : json(m)})])); });
        box.appendChild(list);
        if (r.answer) box.appendChild(answerView(r.answer));
        var raw = el("details", {"class": "raw"}, [el("summary", {text: "what the score file prints"})]);
        Object.keys(r.detail || {}).forEach(function (key) {
          raw.appendChild(el("h4", {text: key}));
          raw.appendChild(folded(r.detail[key]));
        });
        if (!r.answer) raw.open = true;
        box.appendChild(raw);
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
