"use strict";
// maumau-log replay viewer: shows the states the engine computed (embedded as JSON frames).
// It decides no rule: every state, violation and legal action comes from the engine.
// Log text is only ever set with textContent, never parsed as HTML. Player-keyed data is
// read as own data only (pairs, arrays and Maps): a player called "__proto__",
// "constructor" or "toString" is a name like any other.
(function () {
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var hasOwn = Object.prototype.hasOwnProperty;
  function own(o, k) { return o !== null && typeof o === "object" && hasOwn.call(o, k) ? o[k] : undefined; }
  var players = own(data, "players") || [];
  var actions = own(data, "actions") || [];
  var frames = own(data, "frames") || [];
  var lines = own(data, "lines") || [];
  var raws = own(data, "raws") || [];
  var texts = own(data, "texts");
  var first = own(data, "first") || 0;
  var total = own(data, "total") || frames.length;
  var last = first + frames.length - 1;
  var violation = own(data, "violation") || null;
  var vi = violation ? own(violation, "event_index") : null;
  if (vi === undefined) vi = null;
  var viHere = vi !== null && vi >= first && vi <= last;
  var cur = first;
  var SUIT = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  var NAME_SHOWN = 64, RAW_SHOWN = 20000;
  var SCALARS = [["phase", "ph"], ["direction", "di"], ["top", "to"], ["suit", "su"],
    ["pending_draw", "pd"], ["pending_skip", "ps"], ["cover_owed", "co"], ["stock_size", "ss"],
    ["discard_size", "ds"], ["stock_top", "st"], ["round", "rd"]];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  // a frame names a player by seat number; a name that is no seat stays a string
  function who(w) { return typeof w === "number" ? players[w] : w; }
  function shortName(p) {
    p = String(p);
    if (p.length <= NAME_SHOWN) return p;
    return p.slice(0, NAME_SHOWN) + "\u2026 (" + p.length.toLocaleString("en-US") + " characters)";
  }
  function pairs(list) {
    var m = new Map();
    (list || []).forEach(function (e) { m.set(who(e[0]), e[1]); });
    return m;
  }

  // ---- states, rebuilt on demand from the frames (a whole one every few dozen events)
  function applyHand(old, e) {
    if (e.length === 2) return e[1].slice();
    var gone = new Set(e[1]), out = [];
    for (var i = 0; i < old.length; i++) if (!gone.has(i)) out.push(old[i]);
    return out.concat(e[2]);
  }
  function apply(s, f) {
    var n = { f: Object.assign(Object.create(null), s ? s.f : null), hands: new Map(s ? s.hands : []) };
    Object.keys(f).forEach(function (k) {
      if (k === "h") f.h.forEach(function (e) { n.hands.set(e[0], applyHand(n.hands.get(e[0]) || [], e)); });
      else if (k !== "k") n.f[k] = f[k];
    });
    return n;
  }
  var cache = { j: -1, s: null };
  function rawState(j) {
    if (j < 0 || j >= frames.length || frames[j] === null) return null;
    if (cache.j === j) return cache.s;
    var s;
    if (cache.j === j - 1 && cache.s && !own(frames[j], "k")) {
      s = apply(cache.s, frames[j]);
    } else {
      var k = j;
      while (k > 0 && frames[k] !== null && !own(frames[k], "k")) k--;
      if (frames[k] === null || !own(frames[k], "k")) return null;
      s = null;
      for (var i = k; i <= j; i++) s = apply(s, frames[i]);
    }
    cache = { j: j, s: s };
    return s;
  }
  function stateAt(i) {
    var r = rawState(i - first);
    if (!r) return null;
    var f = r.f, s = {};
    SCALARS.forEach(function (p) { s[p[0]] = f[p[1]] === undefined ? null : f[p[1]]; });
    s.turn = f.tu === undefined || f.tu === null ? null : who(f.tu);
    s.awaiting_suit = f.as === undefined || f.as === null ? null : who(f.as);
    s.hands = new Map();
    r.hands.forEach(function (cards, w) { s.hands.set(who(w), cards); });
    s.calls_due = pairs(f.c);
    s.match_totals = f.m ? pairs(f.m) : null;
    s.legal = (f.l || []).map(function (id) {
      var a = actions[id];
      return (a[0] === null ? "" : shortName(who(a[0]))) + a[1];
    });
    return s;
  }

  function card(code, big) {
    var c = el("span", "card" + (big ? " big" : ""));
    c.setAttribute("data-card", code);
    if (code === "?") { c.className += " hidden"; c.textContent = "?"; c.title = "a card not shown"; return c; }
    var suit = code.slice(-1), rank = code.slice(0, -1);
    if (hasOwn.call(SUIT, suit) && rank) {
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
    for (var k = i; k >= first; k--) {
      if (frames[k - first] !== null) return { state: stateAt(k), at: k };
    }
    return { state: null, at: -1 };
  }

  function renderHeader() {
    var h = own(data, "header") || {};
    var rs = own(data, "ruleset");
    $("title").textContent = "Game " + own(data, "game_id") + (rs ? " \u2014 " + own(rs, "preset") : "");
    var meta = $("meta");
    function m(label, value, id) {
      var s = el("span");
      s.appendChild(el("span", null, label + " "));
      var c = el("code", null, value);
      if (id) c.id = id;
      s.appendChild(c);
      meta.appendChild(s);
    }
    var named = own(h, "players");
    m("players", (Array.isArray(named) ? named : players).map(shortName).join(", "));
    if (own(h, "dealer")) m("dealer", shortName(own(h, "dealer")));
    if (own(h, "match_id")) m("match", own(h, "match_id") + (own(h, "round") ? " round " + own(h, "round") : ""));
    m("file", own(data, "file"));
    var st = el("span", violation ? "status-bad" : "status-ok",
      violation ? "invalid: " + own(violation, "code") + " at event " + vi : "valid");
    st.id = "status";
    meta.appendChild(st);
    var unchecked = own(data, "unchecked");
    if (unchecked && unchecked.length) m("not checkable (partial log)", unchecked.join("; "));
    if (own(data, "note")) m("note", own(data, "note"), "note");
    if (first > 0 || last < total - 1) {
      m("this page holds", "events " + first + " to " + last + " of 0 to " + (total - 1), "window");
    }
  }

  function showRaw(raw) {
    var pre = $("event-raw"), more = $("raw-more");
    if (raw.length > RAW_SHOWN) {
      pre.textContent = raw.slice(0, RAW_SHOWN);
      more.hidden = false;
      more.textContent = "show the whole line (" + raw.length.toLocaleString("en-US") + " characters)";
      more.onclick = function () { pre.textContent = raw; more.hidden = true; };
    } else {
      pre.textContent = raw;
      more.hidden = true;
    }
  }

  function render() {
    var j = cur - first;
    var shown = shownState(cur);
    var s = shown.state;
    $("slider").value = String(cur);
    $("step-label").textContent = "event " + cur + " of 0 to " + (total - 1);
    document.body.setAttribute("data-step", String(cur));
    document.body.setAttribute("data-state-at", String(shown.at));

    clear($("top")); clear($("suit")); clear($("stock")); clear($("facts")); clear($("seats"));
    if (s) {
      if (s.top) $("top").appendChild(card(s.top, true)); else $("top").textContent = "\u2014";
      $("suit").textContent = s.suit ? (hasOwn.call(SUIT, s.suit) ? SUIT[s.suit] + " " : "") + s.suit : "\u2014";
      $("suit").setAttribute("data-suit", s.suit || "");
      var stock = el("span", null, s.stock_size + " cards");
      stock.id = "stock-size";
      $("stock").appendChild(stock);
      if (s.stock_top) { $("stock").appendChild(el("span", null, " top ")); $("stock").appendChild(card(s.stock_top)); }
      var f = $("facts");
      fact(f, "phase", "phase", s.phase);
      fact(f, "turn", "turn", s.turn === null ? "\u2014" : shortName(s.turn));
      fact(f, "direction", "direction", s.direction === 1 ? "clockwise" : "counter-clockwise");
      fact(f, "pending-draw", "pending draw", s.pending_draw);
      fact(f, "pending-skip", "pending skip", s.pending_skip);
      fact(f, "awaiting-suit", "suit owed by", s.awaiting_suit === null ? "\u2014" : shortName(s.awaiting_suit));
      fact(f, "cover-owed", "cover owed", s.cover_owed === null ? "\u2014" : s.cover_owed);
      fact(f, "discard-size", "discard pile", s.discard_size + " cards");
      if (s.match_totals) {
        var parts = [];
        s.match_totals.forEach(function (n, p) { parts.push(shortName(p) + " " + n); });
        fact(f, "match-totals", "match totals", parts.join(", "));
      }
      var seats = players.slice();
      s.hands.forEach(function (_, p) { if (seats.indexOf(p) < 0) seats.push(p); });
      seats.forEach(function (p) {
        var seat = el("div", "seat" + (s.turn === p ? " turn" : ""));
        seat.setAttribute("data-player", p);
        var who = el("div", "who", shortName(p));
        var hand = s.hands.get(p) || [];
        who.appendChild(el("span", null, " \u00b7 " + hand.length + (hand.length === 1 ? " card" : " cards")));
        if (s.turn === p) who.appendChild(el("span", "badge", "to play"));
        if (s.calls_due.has(p)) who.appendChild(el("span", "badge fault", "fault open: " + s.calls_due.get(p)));
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
      if (shown.at < 0 && vi !== null && cur > vi) {
        note = "Not replayed (after the violation at event " + vi + ", which is not on this page).";
      } else {
        note = cur === vi ? "The replay stopped at this event: the table shows the state right before it."
                          : "Not replayed (after the violation): the table shows the state before the violation.";
      }
    } else if (cur === 0) {
      note = "The header: the deal comes next.";
    }
    if (cur === last && last < total - 1 && vi !== null && last === vi) {
      note += " The events after it (" + (vi + 1) + " to " + (total - 1) + ") are not stored in the dataset.";
    }
    $("state-note").textContent = note;

    var line = lines[j];
    var place = own(data, "file") + (line ? ":" + line : "") + ", event " + cur;
    var unchecked = own(data, "unchecked_from");
    if (typeof unchecked === "number" && cur >= unchecked) {
      place += " (as the file has it now: the dataset does not store this line, so it is not checked)";
    }
    $("event-place").textContent = place;
    showRaw(String(raws[j]));
    var text = texts ? texts[j] : null;
    if (text !== null && text !== undefined) {
      $("event-text").hidden = false;
      $("event-text").textContent = text;
    } else {
      $("event-text").hidden = true;
    }
    var v = $("violation");
    if (vi !== null && cur === vi) {
      v.hidden = false;
      $("v-code").textContent = own(violation, "code");
      $("v-message").textContent = own(violation, "message");
      $("v-rule").textContent = own(violation, "rule");
      $("v-expected").textContent = own(violation, "expected") || "\u2014";
    } else {
      v.hidden = true;
    }
    var legal = $("legal");
    clear(legal);
    var acts = s ? s.legal : [];
    if (!acts.length) legal.appendChild(el("li", "note", "none"));
    acts.forEach(function (a) { legal.appendChild(el("li", null, a)); });
  }

  function go(i) {
    cur = Math.max(first, Math.min(last, i));
    render();
  }

  $("slider").min = String(first);
  $("slider").max = String(last);
  $("slider").addEventListener("input", function () { go(parseInt(this.value, 10)); });
  $("first").addEventListener("click", function () { go(first); });
  $("prev").addEventListener("click", function () { go(cur - 1); });
  $("next").addEventListener("click", function () { go(cur + 1); });
  $("last").addEventListener("click", function () { go(last); });
  var jv = $("jump-violation");
  if (vi === null) { jv.disabled = true; jv.textContent = "no violation"; }
  else if (!viHere) { jv.disabled = true; jv.textContent = "violation at event " + vi + " (not on this page)"; }
  jv.addEventListener("click", function () { if (viHere) go(vi); });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.id === "slider" && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      e.preventDefault();
    }
    if (e.key === "ArrowRight") go(cur + 1);
    else if (e.key === "ArrowLeft") go(cur - 1);
    else if (e.key === "Home") go(first);
    else if (e.key === "End") go(last);
    else if ((e.key === "v" || e.key === "V") && viHere) go(vi);
  });
  renderHeader();
  var start = own(data, "start");
  go(start === null || start === undefined ? first : start);
  document.body.setAttribute("data-ready", "1");
})();
