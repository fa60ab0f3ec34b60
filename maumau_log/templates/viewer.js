"use strict";
// maumau-log replay viewer: shows the states the engine computed (embedded as JSON).
// It decides no rule: every state, violation and legal action comes from the engine.
// Log text is only ever set with textContent, never parsed as HTML.
(function () {
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var steps = data.steps;
  var vi = data.violation ? data.violation.event_index : null;
  var cur = 0;
  var SUIT = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function card(code, big) {
    var c = el("span", "card" + (big ? " big" : ""));
    c.setAttribute("data-card", code);
    if (code === "?") { c.className += " hidden"; c.textContent = "?"; c.title = "a card not shown"; return c; }
    var suit = code.slice(-1), rank = code.slice(0, -1);
    if (SUIT[suit] && rank) {
      c.textContent = rank + SUIT[suit];
      if (suit === "H" || suit === "D") c.className += " red";
    } else {
      c.textContent = code;
    }
    c.title = code;
    return c;
  }

  function fact(parent, id, label, value) {
    var d = el("div");
    d.appendChild(el("span", null, label + ": "));
    var v = el("span", null, value);
    v.id = id;
    d.appendChild(v);
    parent.appendChild(d);
  }

  // the state to show at step i: the one the event left, or (at the violating event and
  // after it, which the replay did not apply) the last state the engine reached
  function shownState(i) {
    for (var k = i; k >= 0; k--) if (steps[k].state) return { state: steps[k].state, at: k };
    return { state: null, at: -1 };
  }

  function renderHeader() {
    var h = data.header || {};
    $("title").textContent = "Game " + data.game_id + (data.ruleset ? " \u2014 " + data.ruleset.preset : "");
    var meta = $("meta");
    function m(label, value) {
      var s = el("span");
      s.appendChild(el("span", null, label + " "));
      s.appendChild(el("code", null, value));
      meta.appendChild(s);
    }
    m("players", (h.players || []).join(", "));
    if (h.dealer) m("dealer", h.dealer);
    if (h.match_id) m("match", h.match_id + (h.round ? " round " + h.round : ""));
    m("file", data.file);
    var st = el("span", data.violation ? "status-bad" : "status-ok",
      data.violation ? "invalid: " + data.violation.code + " at event " + data.violation.event_index : "valid");
    st.id = "status";
    meta.appendChild(st);
    if (data.unchecked && data.unchecked.length) m("not checkable (partial log)", data.unchecked.join("; "));
  }

  function render() {
    var step = steps[cur];
    var shown = shownState(cur);
    var s = shown.state;
    $("slider").value = String(cur);
    $("step-label").textContent = "event " + cur + " of " + (steps.length - 1);
    document.body.setAttribute("data-step", String(cur));
    document.body.setAttribute("data-state-at", String(shown.at));

    clear($("top")); clear($("suit")); clear($("stock")); clear($("facts")); clear($("seats"));
    if (s) {
      if (s.top) $("top").appendChild(card(s.top, true)); else $("top").textContent = "\u2014";
      $("suit").textContent = s.suit ? SUIT[s.suit] + " " + s.suit : "\u2014";
      $("suit").setAttribute("data-suit", s.suit || "");
      var stock = el("span", null, s.stock_size + " cards");
      stock.id = "stock-size";
      $("stock").appendChild(stock);
      if (s.stock_top) { $("stock").appendChild(el("span", null, " top ")); $("stock").appendChild(card(s.stock_top)); }
      var f = $("facts");
      fact(f, "phase", "phase", s.phase);
      fact(f, "turn", "turn", s.turn === null ? "\u2014" : s.turn);
      fact(f, "direction", "direction", s.direction === 1 ? "clockwise" : "counter-clockwise");
      fact(f, "pending-draw", "pending draw", s.pending_draw);
      fact(f, "pending-skip", "pending skip", s.pending_skip);
      fact(f, "awaiting-suit", "suit owed by", s.awaiting_suit === null ? "\u2014" : s.awaiting_suit);
      fact(f, "cover-owed", "cover owed", s.cover_owed === null ? "\u2014" : s.cover_owed);
      fact(f, "discard-size", "discard pile", s.discard_size + " cards");
      if (s.match_totals) {
        var parts = [];
        for (var p in s.match_totals) parts.push(p + " " + s.match_totals[p]);
        fact(f, "match-totals", "match totals", parts.join(", "));
      }
      var players = (data.header && data.header.players) || Object.keys(s.hands);
      players.forEach(function (p) {
        var seat = el("div", "seat" + (s.turn === p ? " turn" : ""));
        seat.setAttribute("data-player", p);
        var who = el("div", "who", p);
        var hand = s.hands[p] || [];
        who.appendChild(el("span", null, " \u00b7 " + hand.length + (hand.length === 1 ? " card" : " cards")));
        if (s.turn === p) who.appendChild(el("span", "badge", "to play"));
        if (s.calls_due && s.calls_due[p]) who.appendChild(el("span", "badge fault", "fault open: " + s.calls_due[p]));
        seat.appendChild(who);
        var cards = el("div", "cards");
        cards.setAttribute("data-cards", hand.join(" "));
        hand.forEach(function (c) { cards.appendChild(card(c)); });
        seat.appendChild(cards);
        $("seats").appendChild(seat);
      });
    }
    var note = "";
    if (shown.at !== cur) {
      note = cur === vi ? "The replay stopped at this event: the table shows the state right before it."
                        : "Not replayed (after the violation): the table shows the state before the violation.";
    } else if (cur === 0) {
      note = "The header: the deal comes next.";
    }
    $("state-note").textContent = note;

    var place = data.file + (step.line ? ":" + step.line : "") + ", event " + step.index;
    $("event-place").textContent = place;
    $("event-raw").textContent = step.raw;
    if (step.text !== null && step.text !== undefined) {
      $("event-text").hidden = false;
      $("event-text").textContent = step.text;
    } else {
      $("event-text").hidden = true;
    }
    var v = $("violation");
    if (vi !== null && cur === vi) {
      v.hidden = false;
      $("v-code").textContent = data.violation.code;
      $("v-message").textContent = data.violation.message;
      $("v-rule").textContent = data.violation.rule;
      $("v-expected").textContent = data.violation.expected || "\u2014";
    } else {
      v.hidden = true;
    }
    var legal = $("legal");
    clear(legal);
    var acts = steps[shown.at >= 0 ? shown.at : 0].legal || [];
    if (!acts.length) legal.appendChild(el("li", "note", "none"));
    acts.forEach(function (a) { legal.appendChild(el("li", null, a)); });
  }

  function go(i) {
    cur = Math.max(0, Math.min(steps.length - 1, i));
    render();
  }

  $("slider").max = String(steps.length - 1);
  $("slider").addEventListener("input", function () { go(parseInt(this.value, 10)); });
  $("first").addEventListener("click", function () { go(0); });
  $("prev").addEventListener("click", function () { go(cur - 1); });
  $("next").addEventListener("click", function () { go(cur + 1); });
  $("last").addEventListener("click", function () { go(steps.length - 1); });
  var jv = $("jump-violation");
  if (vi === null) { jv.disabled = true; jv.textContent = "no violation"; }
  jv.addEventListener("click", function () { if (vi !== null) go(vi); });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.id === "slider" && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      e.preventDefault();
    }
    if (e.key === "ArrowRight") go(cur + 1);
    else if (e.key === "ArrowLeft") go(cur - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(steps.length - 1);
    else if ((e.key === "v" || e.key === "V") && vi !== null) go(vi);
  });
  renderHeader();
  go(data.start === null || data.start === undefined ? 0 : data.start);
  document.body.setAttribute("data-ready", "1");
})();
