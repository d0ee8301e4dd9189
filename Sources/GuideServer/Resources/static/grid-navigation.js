// The grid's keyboard movement and details panel (the rest of the grid is grid.js, loaded first).
"use strict";

/// Arrow keys move between programmes (left/right within a channel, up/down to what is on at the same time),
/// Home/End to a channel's first and last, Page Up/Down by a screen, Enter opens details, Escape closes them.
Grid.prototype.setupKeyboard = function () {
  var self = this;
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
      case "ArrowRight": target = cells[position + 1]; break;
      case "ArrowLeft": target = cells[position - 1]; break;
      case "Home": target = cells[0]; break;
      case "End": target = cells[cells.length - 1]; break;
      case "ArrowDown": self.moveVertically(cell, 1); event.preventDefault(); return;
      case "ArrowUp": self.moveVertically(cell, -1); event.preventDefault(); return;
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
  cell.tabIndex = 0;
};

Grid.prototype.focusCell = function (cell, quietly) {
  this.rememberFocus(cell);
  var left = cell.offsetLeft, width = cell.offsetWidth;
  var viewLeft = this.scroller.scrollLeft, viewWidth = this.scroller.clientWidth - this.channelWidth;
  if (left < viewLeft || left + Math.min(width, viewWidth) > viewLeft + viewWidth) {
    this.scroller.scrollLeft = Math.max(0, left - Math.min(60 * this.ppm, viewWidth / 4));
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

/// Moves `by` rows from `cell` to the programme on at the same moment (the middle of what is visible of it).
Grid.prototype.moveVertically = function (cell, by) {
  var index = Number(cell.closest(".row").dataset.index) + by;
  index = Math.max(0, Math.min(this.total - 1, index));
  var visibleStart = Math.max(Number(cell.dataset.start), this.scroller.scrollLeft / this.ppm * 60);
  var visibleEnd = Math.min(Number(cell.dataset.end), (this.scroller.scrollLeft + this.scroller.clientWidth - this.channelWidth) / this.ppm * 60);
  var moment = (visibleStart + Math.max(visibleStart, visibleEnd)) / 2;
  var self = this;
  var attempt = function () {
    self.scroller.scrollTop = Math.max(0, Math.min(self.scroller.scrollTop, index * self.rowHeight),
      index * self.rowHeight + self.rowHeight - (self.scroller.clientHeight - self.grid.querySelector(".ruler").offsetHeight));
    self.draw();
    var row = self.live.get(index);
    if (!row || row.classList.contains("loading")) return false;
    var cells = Array.prototype.slice.call(row.querySelectorAll(".p"));
    if (!cells.length) { index += by > 0 ? 1 : -1; return index < 0 || index >= self.total ? true : attempt(); }
    var target = cells.find(function (c) { return Number(c.dataset.start) <= moment && moment < Number(c.dataset.end); })
      || cells.reduce(function (best, c) {
        var distance = Math.abs(Number(c.dataset.start) - moment);
        return !best || distance < Math.abs(Number(best.dataset.start) - moment) ? c : best;
      }, null);
    self.focusCell(target);
    return true;
  };
  if (!attempt()) {
    this.fetchBlock(Math.floor(index / this.blockSize)).then(function () { attempt(); });
  }
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
    if (event.key === "Escape" && !self.panel.hidden) { event.preventDefault(); self.closePanel(); }
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
      if (heading) { heading.setAttribute("tabindex", "-1"); heading.focus(); }
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
