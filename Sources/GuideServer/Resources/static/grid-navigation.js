// The grid's keyboard movement and details panel (the rest of the grid is grid.js, loaded first).
"use strict";

/// Arrow keys move between programmes (left/right within a channel, up/down to what is on at the same time),
/// Home/End to a channel's first and last, Page Up/Down by a screen, Enter opens details, Escape closes them.
/// In TV mode (html.tv) a remote drives it: see setupTelevision.
Grid.prototype.setupKeyboard = function () {
  var self = this;
  if (Grid.isTelevision()) this.setupTelevision();
  this.grid.addEventListener("focusin", function (event) {
    if (event.target.classList && event.target.classList.contains("p")) self.rememberFocus(event.target);
  });
  this.grid.addEventListener("keydown", function (event) {
    var cell = event.target.closest ? event.target.closest(".p") : null;
    if (!cell) return;
    var row = cell.closest(".row");
    var cells = Array.prototype.slice.call(row.querySelectorAll(".p"));
    var position = cells.indexOf(cell);
    var target = null;
    switch (event.key) {
      // Later is to the right, or on a right-to-left page to the left.
      case "ArrowRight": target = cells[position + (self.rtl ? -1 : 1)]; break;
      case "ArrowLeft": target = cells[position + (self.rtl ? 1 : -1)]; break;
      case "Home": target = cells[0]; break;
      case "End": target = cells[cells.length - 1]; break;
      case "ArrowDown": self.moveVertically(cell, 1); event.preventDefault(); return;
      case "ArrowUp":
        // On a television the row above the first is the toolbar (the days, the zoom).
        if (Grid.isTelevision() && Number(row.dataset.index) === 0) { self.focusToolbar(); event.preventDefault(); return; }
        self.moveVertically(cell, -1); event.preventDefault(); return;
      case "PageDown": self.moveVertically(cell, Math.max(1, Math.floor(self.scroller.clientHeight / self.rowHeight) - 1)); event.preventDefault(); return;
      case "PageUp": self.moveVertically(cell, -Math.max(1, Math.floor(self.scroller.clientHeight / self.rowHeight) - 1)); event.preventDefault(); return;
      default: return;
    }
    event.preventDefault();
    if (target) self.focusCell(target);
  });
};

Grid.prototype.rememberFocus = function (cell) {
  if (this.focusedCell && this.focusedCell !== cell) this.focusedCell.tabIndex = -1;
  this.focusedCell = cell;
  cell.dataset.row = cell.closest(".row").dataset.index;
  cell.tabIndex = 0;
};

Grid.prototype.focusCell = function (cell, quietly) {
  this.rememberFocus(cell);
  // From the day's start, whichever way the page runs.
  var left = Math.max(0, Number(cell.dataset.start)) / 60 * this.ppm, width = cell.offsetWidth;
  var viewLeft = this.scrolledFromStart(), viewWidth = this.scroller.clientWidth - this.channelWidth;
  if (left < viewLeft || left + Math.min(width, viewWidth) > viewLeft + viewWidth) {
    this.scrollFromStart(Math.max(0, left - Math.min(60 * this.ppm, viewWidth / 4)));
  }
  var row = cell.closest(".row");
  var top = Number(row.dataset.index) * this.rowHeight;
  var rulerHeight = this.grid.querySelector(".ruler").offsetHeight;
  var viewTop = this.scroller.scrollTop, viewHeight = this.scroller.clientHeight - rulerHeight;
  if (top < viewTop) this.scroller.scrollTop = top;
  else if (top + this.rowHeight > viewTop + viewHeight) this.scroller.scrollTop = top + this.rowHeight - viewHeight;
  if (!quietly) cell.focus({ preventScroll: true });
  this.draw();
};

/// Moves `by` rows from `cell` to the programme on at the same moment (the middle of what is visible of it), past
/// channels with nothing that day, fetching rows as it goes.
Grid.prototype.moveVertically = function (cell, by) {
  // Presses while rows are fetched count from where the last one is going, so a held key is never lost.
  var from = this.pendingRow !== undefined && this.pendingRow !== null ? this.pendingRow : Number(cell.closest(".row").dataset.index);
  var index = Math.max(0, Math.min(this.total - 1, from + by));
  var visibleStart = Math.max(Number(cell.dataset.start), this.scrolledFromStart() / this.ppm * 60);
  var visibleEnd = Math.min(Number(cell.dataset.end), (this.scrolledFromStart() + this.scroller.clientWidth - this.channelWidth) / this.ppm * 60);
  var moment = (visibleStart + Math.max(visibleStart, visibleEnd)) / 2;
  var step = by > 0 ? 1 : -1;
  var self = this, fetches = 0;
  // While a move waits for rows the grid says it is busy (to screen readers, and to tests that wait for it).
  var waitFor = function (row) {
    self.pendingRow = row;
    if (row === null) self.grid.removeAttribute("aria-busy"); else self.grid.setAttribute("aria-busy", "true");
  };
  var attempt = function () {
    for (;;) {
      self.scroller.scrollTop = Math.max(0, Math.min(self.scroller.scrollTop, index * self.rowHeight),
        index * self.rowHeight + self.rowHeight - (self.scroller.clientHeight - self.grid.querySelector(".ruler").offsetHeight));
      self.draw();
      var row = self.live.get(index);
      if (!row || row.classList.contains("loading")) {
        // Not fetched yet: wait for its rows (a few tries, so a network that is down does not loop).
        waitFor(index);
        var wanted = index;
        if (++fetches > 20) { waitFor(null); return; }
        self.fetchBlock(Math.floor(index / self.blockSize)).then(function () { if (self.pendingRow === wanted) attempt(); });
        return;
      }
      var cells = Array.prototype.slice.call(row.querySelectorAll(".p"));
      if (cells.length) {
        var target = cells.find(function (c) { return Number(c.dataset.start) <= moment && moment < Number(c.dataset.end); })
          || cells.reduce(function (best, c) {
            var distance = Math.abs(Number(c.dataset.start) - moment);
            return !best || distance < Math.abs(Number(best.dataset.start) - moment) ? c : best;
          }, null);
        waitFor(null);
        self.focusCell(target);
        return;
      }
      index += step;
      if (index < 0 || index >= self.total) { waitFor(null); return; }
    }
  };
  attempt();
};

/// The details panel: programme links open it over the grid at their own address (?p=ID), so it can be shared,
/// and Back or Escape closes it where the grid was.
Grid.prototype.setupPanel = function () {
  var self = this;
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a") : null;
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    var match = /^\/programmes\/(\d+)$/.exec(new URL(link.href, location.href).pathname);
    if (match && (self.grid.contains(link) || self.panel.contains(link))) {
      event.preventDefault();
      self.openPanel(match[1], true);
    } else if (link.id === "panel-close") {
      event.preventDefault();
      self.closePanel();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (Grid.isBack(event) && !self.panel.hidden) { event.preventDefault(); self.closePanel(); }
  });
  window.addEventListener("popstate", function (event) {
    var id = new URL(location.href).searchParams.get("p");
    if (id) self.openPanel(id, false); else self.hidePanel();
  });
  if (!this.panel.hidden) {
    this.panel.querySelector("h2").setAttribute("tabindex", "-1");
  }
  // A shared address with ?p= that the server did not draw a panel for (the page came from the offline copy).
  var wanted = new URL(location.href).searchParams.get("p");
  if (wanted && this.panel.hidden) this.openPanel(wanted, false);
};

Grid.prototype.openPanel = function (id, push) {
  var self = this;
  fetch("/programmes/" + encodeURIComponent(id) + "?part=panel", { credentials: "same-origin" })
    .then(function (response) { if (!response.ok) throw new Error(response.status); return response.text(); })
    .then(function (html) {
      self.panelBody.innerHTML = html;
      self.panel.hidden = false;
      if (push) {
        var url = new URL(location.href);
        url.searchParams.set("p", id);
        var state = Object.assign({}, history.state || {}, { panel: id, pushed: true });
        history.pushState(state, "", url);
      }
      var heading = self.panel.querySelector("h2");
      if (heading) heading.setAttribute("tabindex", "-1");
      // On a television the second OK watches (or sets a reminder): the panel opens on that button.
      var first = Grid.isTelevision() ? Grid.primaryAction(self.panel) : heading;
      if (first) first.focus();
    })
    .catch(function () { location.href = "/programmes/" + id; });
};

Grid.prototype.closePanel = function () {
  if (history.state && history.state.pushed) { history.back(); return; }
  var url = new URL(location.href);
  url.searchParams.delete("p");
  history.replaceState(Object.assign({}, history.state || {}, { panel: null }), "", url);
  this.hidePanel();
};

Grid.prototype.hidePanel = function () {
  this.panel.hidden = true;
  if (this.focusedCell && document.contains(this.focusedCell)) this.focusedCell.focus({ preventScroll: true });
};

/// Whether the page is laid out for a television and its remote (html.tv: TVMode.swift).
Grid.isTelevision = function () { return document.documentElement.classList.contains("tv"); };

/// A remote's Back, or Escape: GoBack and BrowserBack as TV browsers name it, LG webOS's key 461 and Samsung Tizen's
/// 10009, and Backspace outside a text field.
Grid.isBack = function (event) {
  if (event.key === "Escape" || event.key === "GoBack" || event.key === "BrowserBack") return true;
  if (event.keyCode === 461 || event.keyCode === 10009) return true;
  var field = event.target && event.target.closest && event.target.closest("input, textarea, select");
  return event.key === "Backspace" && !field;
};

/// The details' first action, in this order: Watch where the channel has a stream, else Record (for a viewer who may
/// record), else Remind me, else the heading.
Grid.primaryAction = function (root) {
  var wanted = ["a.watch", "form.record button[type=submit]", "form.remind button[type=submit]", "h2"];
  for (var i = 0; i < wanted.length; i++) {
    var found = root.querySelector(wanted[i]);
    if (found) return found;
  }
  return null;
};

/// TV mode: the focus starts on a programme and is never lost (a row drawn again, a click elsewhere, the details
/// closed: it goes back to the programme it was on, or the nearest one); arrows move inside the details too; Down from
/// the toolbar comes back to the grid.
Grid.prototype.setupTelevision = function () {
  var self = this;
  var start = this.focusedCell || this.firstCurrentCell();
  if (start) this.focusCell(start);
  document.addEventListener("focusout", function () {
    setTimeout(function () { self.restoreFocus(); }, 0);
  });
  document.addEventListener("keydown", function (event) {
    var active = document.activeElement;
    if (!self.panel.hidden && self.panel.contains(active)) {
      var step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
      if (step && !(active.closest && active.closest("select, input"))) {
        var items = Array.prototype.filter.call(self.panel.querySelectorAll("a[href], button, select, input"), function (item) {
          return item.offsetParent !== null && !item.disabled;
        });
        var next = items[Math.max(0, Math.min(items.length - 1, items.indexOf(active) + step))];
        if (next) { event.preventDefault(); next.focus(); }
      }
      return;
    }
    if (event.key === "ArrowDown" && active && active.closest && active.closest(".toolbar")) {
      event.preventDefault();
      self.restoreFocus(true);
    }
  });
};

/// The programme on now in the first row that has one, else the first programme drawn.
Grid.prototype.firstCurrentCell = function () {
  var now = this.now() - this.dayStart;
  var cells = Array.prototype.slice.call(this.rowsBox.querySelectorAll(".row:not(.loading) .p"));
  return cells.find(function (c) { return Number(c.dataset.start) <= now && now < Number(c.dataset.end); }) || cells[0] || null;
};

Grid.prototype.focusToolbar = function () {
  var first = this.guide.querySelector(".toolbar a.button, .toolbar button");
  if (first) first.focus();
};

/// Puts the focus back on the grid when it has gone nowhere (the body) and the details are closed: on the programme
/// it was on if that is still drawn, else the one at the same place in its row as drawn now.
Grid.prototype.restoreFocus = function (always) {
  var active = document.activeElement;
  if (!always && active && active !== document.body && document.contains(active)) return;
  if (!this.panel.hidden) { var first = Grid.primaryAction(this.panel); if (first) first.focus(); return; }
  var cell = this.focusedCell;
  if (!cell || !document.contains(cell)) {
    var index = cell ? Number(cell.dataset.row) : 0;
    var row = this.live.get(index);
    var id = cell ? cell.getAttribute("href") : null;
    cell = row && (Array.prototype.find.call(row.querySelectorAll(".p"), function (c) { return c.getAttribute("href") === id; })
      || row.querySelector(".p")) || this.firstCurrentCell();
  }
  if (cell) this.focusCell(cell);
};
