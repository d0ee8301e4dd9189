// The guide grid: smooth scrolling over any number of channels (only rows near the viewport exist, fetched from
// /grid/rows), exact placement, zoom in place, keyboard movement and the details panel. Started by guide.js.
"use strict";

function Grid(guide) {
  var self = this;
  this.guide = guide;
  this.scroller = document.getElementById("grid-scroll");
  this.grid = document.getElementById("grid");
  this.rowsBox = document.getElementById("rows");
  this.panel = document.getElementById("panel");
  this.panelBody = document.getElementById("panel-body");
  this.day = guide.dataset.day;
  this.dayStart = Number(guide.dataset.dayStart);
  this.dayEnd = Number(guide.dataset.dayEnd);
  this.dayLength = this.dayEnd - this.dayStart;
  // The server's clock: from the page, or, offline, from the copy it came from.
  this.skew = Offline.isKept() ? Offline.skew : Number(guide.dataset.now) * 1000 - Date.now();
  this.total = Number(guide.dataset.total);
  this.genre = guide.dataset.genre || "";   // ?genre=: other genres' programmes are dimmed
  this.blockSize = 40;
  this.blocks = new Map();      // block index -> rows (data), most recently used last
  this.pending = new Map();     // block index -> promise
  this.live = new Map();        // row index -> element
  this.focusedCell = null;

  // A right-to-left page runs time from right to left: positions count from the inline start, and scrollLeft is
  // negative from the right edge (scrolledFromStart and scrollFromStart hide which).
  this.rtl = getComputedStyle(this.scroller).direction === "rtl";
  this.channelWidth = this.measure("--chw");
  this.rowHeight = this.measure("--rowh");
  this.gutter = 0;              // px of the window's width the scrollbars take, as the stylesheet was told (applyZoom)

  // The server-rendered rows become the first live rows; the rest are drawn on demand.
  this.rowsBox.classList.add("virtual");
  this.rowsBox.style.height = this.total * this.rowHeight + "px";
  Array.prototype.forEach.call(this.rowsBox.querySelectorAll(".row"), function (row) {
    var index = Number(row.dataset.index);
    row.style.top = index * self.rowHeight + "px";
    self.live.set(index, row);
  });
  var pager = guide.querySelector(".pager");
  if (pager) pager.hidden = true;

  // The stylesheet placed the server's cells by their whole minutes at the screen's zoom, before this script ran; only
  // those that start or end within a minute are placed again, exactly.
  Array.prototype.forEach.call(this.rowsBox.querySelectorAll(".p"), function (cell) {
    if (cell.dataset.start % 60 || cell.dataset.end % 60) self.placeExactly(cell);
  });
  this.applyZoom(null);
  this.placeNowLine();
  setInterval(function () { self.placeNowLine(); }, 30000);

  var state = history.state;
  if (state && state.day === this.day && typeof state.left === "number") {
    this.scrollFromStart(state.left);
    this.scroller.scrollTop = state.top;
  } else {
    this.scrollToStart();
  }
  this.scroller.addEventListener("scroll", function () { self.scheduleDraw(); self.rememberScroll(); }, { passive: true });
  window.addEventListener("resize", function () { self.applyZoom(); });
  this.draw();
  this.setupZoomButtons();
  this.setupKeyboard();
  this.setupPanel();
  var first = this.rowsBox.querySelector(".p");
  if (first) first.tabIndex = 0;
}

/// A length the stylesheet sets, in pixels; `times` magnifies it first (layout rounds to 1/64 px, which a minute's
/// pixels cannot afford: a day is 1,440 of them).
Grid.prototype.measure = function (variable, times) {
  times = times || 1;
  var probe = document.createElement("div");
  probe.style.position = "absolute";
  probe.style.visibility = "hidden";
  probe.style.width = "calc(var(" + variable + ") * " + times + ")";
  this.grid.appendChild(probe);
  var width = probe.getBoundingClientRect().width;
  probe.remove();
  return width / times;
};

Grid.prototype.now = function () { return (Date.now() + this.skew) / 1000; };

/// Reads the zoom the stylesheet applies (the address's, or the screen's default: guide.css) and its pixels per minute
/// (`zoom` minutes fill the width beside the channel column), marks its button, and keeps `keepTime` (a time, or
/// null; by default the time at the visible start) at the visible start.
Grid.prototype.applyZoom = function (keepTime) {
  var time = keepTime === undefined ? this.timeAtLeft() : keepTime;
  // The stylesheet counts the window's width; scrollbars that take room (not a phone's) are taken off it.
  var gutter = window.innerWidth - this.scroller.clientWidth;
  if (gutter !== this.gutter) {
    this.gutter = gutter;
    this.grid.style.setProperty("--gutter", gutter + "px");
  }
  this.zoom = Number(getComputedStyle(this.grid).getPropertyValue("--zoom"));
  this.ppm = this.measure("--ppm", 1440);
  var zoom = this.zoom;
  this.guide.querySelectorAll(".zoom a").forEach(function (link) {
    var current = Number(link.dataset.zoom) === zoom;
    if (link.classList.contains("current") === current) return;
    link.classList.toggle("current", current);
    if (current) link.setAttribute("aria-current", "true"); else link.removeAttribute("aria-current");
  });
  if (time !== null) this.scrollFromStart(Math.max(0, (time - this.dayStart) / 60 * this.ppm));
  this.keepTitlesInView();
};

/// How far the grid is scrolled from the day's start, in pixels, whichever way the page runs.
Grid.prototype.scrolledFromStart = function () {
  return Math.abs(this.scroller.scrollLeft);
};

Grid.prototype.scrollFromStart = function (pixels) {
  this.scroller.scrollLeft = this.rtl ? -pixels : pixels;
};

Grid.prototype.timeAtLeft = function () {
  if (!this.ppm) return null;
  return this.dayStart + this.scrolledFromStart() / this.ppm * 60;
};

/// A cell's place and length in exact minutes from its seconds, clipped to the day: the stylesheet multiplies them by
/// the zoom's pixels per minute, so no zoom moves a cell again.
Grid.prototype.placeExactly = function (cell) {
  var length = this.dayLength;
  var start = Math.min(Math.max(Number(cell.dataset.start), 0), length);
  var end = Math.min(Math.max(Number(cell.dataset.end), 0), length);
  cell.style.setProperty("--o", start / 60);
  cell.style.setProperty("--d", Math.max(0, end - start) / 60);
};

Grid.prototype.placeNowLine = function () {
  var line = document.getElementById("now-line");
  var now = this.now();
  if (now < this.dayStart || now >= this.dayEnd) { if (line) line.hidden = true; return; }
  if (!line) {
    line = document.createElement("div");
    line.id = "now-line";
    line.className = "now-line";
    line.setAttribute("aria-hidden", "true");
    this.grid.appendChild(line);
  }
  line.hidden = false;
  line.style.setProperty("--o", (now - this.dayStart) / 60);
};

Grid.prototype.scrollToStart = function () {
  var focusTime = Number(this.guide.dataset.focusTime) || null;
  var now = this.now();
  var target = focusTime || (now >= this.dayStart && now < this.dayEnd ? now : null);
  if (target) this.scrollFromStart(Math.max(0, (target - this.dayStart - 1800) / 60 * this.ppm));
  var channel = this.guide.dataset.focusChannel;
  if (channel) {
    var row = this.rowsBox.querySelector('.row[data-channel="' + CSS.escape(channel) + '"]');
    if (row) {
      this.scroller.scrollTop = Math.max(0, Number(row.dataset.index) * this.rowHeight - this.rowHeight);
      var self = this;
      var cell = Array.prototype.find.call(row.querySelectorAll(".p"), function (c) {
        return self.dayStart + Number(c.dataset.start) <= target && target < self.dayStart + Number(c.dataset.end);
      });
      if (cell) this.focusCell(cell, true);
    }
  }
};

Grid.prototype.rememberScroll = function () {
  var self = this;
  clearTimeout(this.rememberTimer);
  this.rememberTimer = setTimeout(function () {
    var state = Object.assign({}, history.state || {}, { day: self.day, left: self.scrolledFromStart(), top: self.scroller.scrollTop });
    history.replaceState(state, "");
  }, 150);
};

Grid.prototype.scheduleDraw = function () {
  var self = this;
  if (this.drawQueued) return;
  this.drawQueued = true;
  requestAnimationFrame(function () { self.drawQueued = false; self.draw(); });
};

/// Keeps rows within a screen above and below the viewport, and no others.
Grid.prototype.draw = function () {
  var top = this.scroller.scrollTop, height = this.scroller.clientHeight;
  var first = Math.max(0, Math.floor(top / this.rowHeight) - 10);
  var last = Math.min(this.total - 1, Math.ceil((top + height) / this.rowHeight) + 10);
  var self = this;
  this.live.forEach(function (row, index) {
    if ((index < first - 20 || index > last + 20) && !row.contains(document.activeElement)) {
      row.remove();
      self.live.delete(index);
    }
  });
  for (var index = first; index <= last; index++) {
    var existing = this.live.get(index);
    if (existing && !existing.classList.contains("loading")) continue;
    var data = this.rowData(index);
    if (data) {
      var row = this.buildRow(data);
      if (existing) existing.replaceWith(row); else this.rowsBox.appendChild(row);
      this.live.set(index, row);
    } else if (!existing) {
      var placeholder = this.buildPlaceholder(index);
      this.rowsBox.appendChild(placeholder);
      this.live.set(index, placeholder);
    }
  }
  this.keepTitlesInView();
};

/// A programme that started before the visible part keeps its title in view: the one cell of each live row that
/// crosses the visible start has its text start there (a padding, taken off when another cell crosses). Only those
/// cells change, once a frame: CSS sticky text on every cell made scrolling three times slower.
Grid.prototype.keepTitlesInView = function () {
  if (!this.ppm) return;
  var edge = this.scrolledFromStart() / this.ppm * 60;   // seconds from the day's start at the visible start
  var ppm = this.ppm;
  this.live.forEach(function (row) {
    var cells = row.querySelectorAll(".p"), crossing = null;
    for (var i = 0; i < cells.length; i++) {
      var start = Number(cells[i].dataset.start);
      if (start >= edge) break;
      if (Number(cells[i].dataset.end) > edge) { crossing = cells[i]; break; }
    }
    if (row.shiftedCell && row.shiftedCell !== crossing) row.shiftedCell.style.paddingInlineStart = "";
    row.shiftedCell = crossing;
    if (crossing) {
      var hidden = (edge - Math.max(0, Number(crossing.dataset.start))) / 60 * ppm;
      crossing.style.paddingInlineStart = hidden + "px";
    }
  });
};

Grid.prototype.rowData = function (index) {
  var block = Math.floor(index / this.blockSize);
  var rows = this.blocks.get(block);
  if (!rows) { this.fetchBlock(block); return null; }
  this.blocks.delete(block);
  this.blocks.set(block, rows);
  return rows[index - block * this.blockSize] || null;
};

Grid.prototype.fetchBlock = function (block) {
  if (this.pending.has(block)) return this.pending.get(block);
  var self = this;
  var url = "/grid/rows?day=" + encodeURIComponent(this.day) + "&from=" + block * this.blockSize + "&count=" + this.blockSize
    + "&group=" + encodeURIComponent(this.guide.dataset.group || "")
    + (this.guide.dataset.followed ? "&followed=" + encodeURIComponent(this.guide.dataset.followed) : "");
  var promise = fetch(url, { credentials: "same-origin" })
    .then(function (response) { if (!response.ok) throw new Error(response.status); return response.json(); })
    .then(function (document) {
      self.blocks.set(block, document.rows);
      while (self.blocks.size > 60) self.blocks.delete(self.blocks.keys().next().value);
      self.pending.delete(block);
      self.draw();
    })
    .catch(function () { self.pending.delete(block); });
  this.pending.set(block, promise);
  return promise;
};

Grid.prototype.buildPlaceholder = function (index) {
  var row = document.createElement("div");
  row.className = "row loading";
  row.dataset.index = index;
  row.setAttribute("role", "row");
  row.setAttribute("aria-rowindex", index + 2);
  row.style.top = index * this.rowHeight + "px";
  row.innerHTML = '<div class="ch" role="rowheader">…</div><div class="track" role="presentation"></div>';
  return row;
};

/// A row from `/grid/rows`: the server's markup (GridRowsHTML, the same as the page's first rows), put in its place,
/// its cells placed exactly and, with `?genre=`, the other genres dimmed (the offline copy's rows are not filtered).
Grid.prototype.buildRow = function (data) {
  var holder = document.createElement("template");
  holder.innerHTML = data.html;
  var row = holder.content.firstElementChild;
  row.style.top = data.index * this.rowHeight + "px";
  var self = this, genre = this.genre;
  Array.prototype.forEach.call(row.querySelectorAll(".p"), function (cell) {
    self.placeExactly(cell);
    if (genre) cell.classList.toggle("dim", !cell.classList.contains("g-" + genre));
  });
  return row;
};

/// Changes the zoom in place, keeping the time at the left edge, and carries it into the day links and the URL.
Grid.prototype.setZoom = function (minutes) {
  var self = this;
  var time = this.timeAtLeft();
  var grid = this.grid;
  Array.prototype.slice.call(grid.classList).forEach(function (name) { if (name.indexOf("zoom-") === 0) grid.classList.remove(name); });
  this.grid.classList.add("zoom-" + minutes);
  this.applyZoom(time);
  var url = new URL(location.href);
  url.searchParams.set("zoom", minutes);
  history.replaceState(history.state, "", url);
  // The zoom chosen carries over to other days (a page that followed the screen's default named none).
  this.guide.querySelectorAll(".days a").forEach(function (link) {
    var target = new URL(link.href); target.searchParams.set("zoom", minutes); link.href = target;
  });
  var picker = this.guide.querySelector(".day-picker"), field = picker && picker.querySelector("input[name=zoom]");
  if (picker && !field) {
    field = document.createElement("input");
    field.type = "hidden"; field.name = "zoom";
    picker.appendChild(field);
  }
  if (field) field.value = minutes;
};

Grid.prototype.setupZoomButtons = function () {
  var self = this;
  Array.prototype.forEach.call(this.guide.querySelectorAll(".zoom a[data-zoom]"), function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      self.setZoom(Number(link.dataset.zoom));
    });
  });
  var nowButton = document.getElementById("now-button");
  if (nowButton) nowButton.addEventListener("click", function (event) {
    var target = new URL(nowButton.href);
    if (target.searchParams.get("day") !== self.day) return;
    event.preventDefault();
    self.scroller.scrollTo({ left: Math.max(0, (self.now() - self.dayStart - 1800) / 60 * self.ppm), behavior: "smooth" });
  });
};
