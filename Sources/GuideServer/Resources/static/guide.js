// tvguide: the pages work without this script; it adds the browser's time zone, the grid's smooth scrolling over
// any number of channels (only rows near the viewport exist), exact placement, zoom in place, keyboard movement,
// the details panel, and the installed guide's offline copy (sw.js).
"use strict";

/* A page the service worker answered from its copy of the listings, with the network gone, carries when the copy
   was made (the server's clock, Unix seconds), the server's clock less this device's then, and the copy's zone. */
var Offline = {
  taken: Number(document.documentElement.dataset.offlineTaken || 0),
  skew: Number(document.documentElement.dataset.offlineSkew || 0),
  zone: document.documentElement.dataset.offlineZone || undefined,
  /// Whether this page came from the copy.
  isKept: function () { return Offline.taken > 0; },
  /// Now by the server's clock, in seconds.
  now: function () { return (Date.now() + Offline.skew) / 1000; },
  /// "14:05" in the copy's zone.
  time: function (seconds, zone) {
    return new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: zone || Offline.zone })
      .format(new Date(seconds * 1000));
  },
  /// The banner over a page shown from the copy: "Offline - listings as of 14:05".
  banner: function (taken, zone) {
    var banner = document.getElementById("offline-banner");
    if (!banner) {
      banner = document.createElement("p");
      banner.id = "offline-banner";
      banner.className = "offline-banner";
      banner.setAttribute("role", "status");
      var main = document.getElementById("main");
      main.parentNode.insertBefore(banner, main);
    }
    banner.textContent = "Offline - listings as of " + Offline.time(taken, zone);
    banner.hidden = false;
  }
};

/* Registers the service worker and asks it to bring its copy up to date whenever a page opens online (it asks the
   server at most every two minutes, at once when the viewer changed) and at once when the network comes back. */
(function installedGuide() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js").then(function (registration) {
    var refresh = function (now) {
      var worker = navigator.serviceWorker.controller || registration.active;
      if (worker) worker.postMessage({ type: "refresh", viewer: document.body.dataset.viewer || "", force: now === true });
    };
    if (!Offline.isKept()) navigator.serviceWorker.ready.then(refresh);
    window.addEventListener("online", function () {
      var banner = document.getElementById("offline-banner");
      if (banner && !Offline.isKept()) banner.hidden = true;
      refresh(true);
    });
    window.addEventListener("offline", function () {
      fetch("/offline/listings?kept").then(function (response) { return response.ok ? response.json() : null; })
        .then(function (copy) { if (copy && copy.takenAt) Offline.banner(copy.takenAt, copy.zone); });
    });
    if (registration.periodicSync) {
      registration.periodicSync.register("tvguide-listings", { minInterval: 6 * 3600 * 1000 }).catch(function () {});
    }
  }).catch(function () {});
})();

(function rememberZone() {
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) return;
  var current = document.cookie.split("; ").find(function (c) { return c.indexOf("tz=") === 0; });
  var wanted = "tz=" + encodeURIComponent(zone);
  if (current === wanted) return;
  document.cookie = wanted + "; path=/; max-age=31536000; samesite=lax";
  // Draw the guide again in the viewer's zone, once, when the server guessed another one.
  var guide = document.getElementById("guide");
  if (guide && guide.dataset.zone !== zone && !sessionStorage.getItem("tvguide-zone-reload")) {
    sessionStorage.setItem("tvguide-zone-reload", "1");
    location.reload();
  }
})();

document.addEventListener("DOMContentLoaded", function () {
  if (Offline.isKept()) Offline.banner(Offline.taken);
  var guide = document.getElementById("guide");
  if (guide) new Grid(guide);
  var nowList = document.querySelector(".now-list");
  if (nowList && Offline.isKept()) new OfflineNow(nowList);
  var push = document.getElementById("push-subscribe");
  if (push) new PushButton(push);
  var refresh = document.getElementById("refresh");
  if (refresh && window.EventSource) new RefreshView(refresh);
  adminForms();
});

/* Admin forms: keep or drop every channel on a page; confirm before removing a source. */
function adminForms() {
  Array.prototype.forEach.call(document.querySelectorAll("[data-check]"), function (button) {
    button.addEventListener("click", function () {
      var checked = button.dataset.check === "all";
      Array.prototype.forEach.call(button.form.querySelectorAll("input[name=keep]"), function (box) { box.checked = checked; });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("form[data-confirm]"), function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
}

/* The sources page's live refresh progress, from the server-sent events at data-events. Built with textContent
   only: locations and errors come from other servers. When a refresh it watched ends, the sources table is fetched
   again so its last-refresh column tells the outcome. */
function RefreshView(section) {
  var self = this;
  this.box = document.getElementById("refresh-progress");
  this.sawRunning = false;
  this.events = new EventSource(section.dataset.events);
  this.events.addEventListener("progress", function (event) { self.show(JSON.parse(event.data)); });
}

RefreshView.megabytes = function (bytes) { return (bytes / 1e6).toFixed(1) + " MB"; };

RefreshView.prototype.show = function (progress) {
  var box = this.box;
  box.textContent = "";
  box.dataset.running = progress.running ? "true" : "false";
  if (!progress.sources.length) { box.appendChild(element("p", "progress-summary", "No refresh has run since the server started.")); return; }
  box.appendChild(element("p", "progress-summary", (progress.running ? "Refreshing: " : "Last refresh: ") + progress.downloadsDone + " of "
    + progress.downloadsTotal + " downloads done"));
  var overall = element("progress");
  overall.max = Math.max(progress.downloadsTotal, 1);
  overall.value = progress.downloadsDone;
  overall.setAttribute("aria-label", "Downloads done");
  box.appendChild(overall);
  var list = element("ul", "progress-sources");
  progress.sources.forEach(function (source) {
    var item = element("li");
    item.dataset.source = source.name;
    item.dataset.phase = source.phase;
    item.appendChild(element("strong", undefined, source.name));
    item.appendChild(document.createTextNode(" " + source.phase + " · " + source.downloadsDone + "/" + source.downloadsTotal));
    if (source.error) item.appendChild(element("p", "failed", source.error));
    source.feeds.forEach(function (feed) {
      var line = element("div", "feed");
      line.appendChild(element("small", "location", feed.location));
      if (feed.percent !== undefined && feed.percent !== null) {
        var bar = element("progress");
        bar.max = 100;
        bar.value = feed.percent;
        bar.setAttribute("aria-label", feed.location);
        line.appendChild(bar);
        line.appendChild(element("span", undefined, " " + feed.percent + "% of " + RefreshView.megabytes(feed.totalBytes)));
      } else {
        line.appendChild(element("span", undefined, " " + RefreshView.megabytes(feed.bytes) + ", " + feed.programmes + " programmes"));
      }
      if (feed.attempt > 1) line.appendChild(element("span", undefined, " (try " + feed.attempt + (feed.retryReason ? ": " + feed.retryReason : "") + ")"));
      item.appendChild(line);
    });
    list.appendChild(item);
  });
  box.appendChild(list);
  if (progress.running) this.sawRunning = true;
  else if (this.sawRunning) { this.sawRunning = false; this.reloadTable(); }
};

RefreshView.prototype.reloadTable = function () {
  fetch("/admin/sources", { credentials: "same-origin" })
    .then(function (response) { return response.text(); })
    .then(function (html) {
      var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("table.sources");
      var current = document.querySelector("table.sources");
      if (fresh && current) current.replaceWith(fresh);
    });
};

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
  this.zoom = Number(guide.dataset.zoom);
  this.total = Number(guide.dataset.total);
  this.genre = guide.dataset.genre || "";   // ?genre=: other genres' programmes are dimmed
  this.blockSize = 40;
  this.blocks = new Map();      // block index -> rows (data), most recently used last
  this.pending = new Map();     // block index -> promise
  this.live = new Map();        // row index -> element
  this.focusedCell = null;

  this.channelWidth = this.measure("--chw");
  this.rowHeight = this.measure("--rowh");

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

  // A phone shows an hour across unless the address asks for another zoom.
  if (!new URL(location.href).searchParams.has("zoom") && this.scroller.clientWidth < 600) {
    this.grid.classList.remove("zoom-" + this.zoom);
    this.zoom = 60;
    this.grid.classList.add("zoom-60");
    this.guide.querySelectorAll(".zoom a").forEach(function (link) {
      link.classList.toggle("current", Number(link.dataset.zoom) === 60);
    });
  }
  this.applyZoom();
  this.placeNowLine();
  setInterval(function () { self.placeNowLine(); }, 30000);

  var state = history.state;
  if (state && state.day === this.day && typeof state.left === "number") {
    this.scroller.scrollLeft = state.left;
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

Grid.prototype.measure = function (variable) {
  var probe = document.createElement("div");
  probe.style.position = "absolute";
  probe.style.visibility = "hidden";
  probe.style.width = "var(" + variable + ")";
  this.grid.appendChild(probe);
  var width = probe.getBoundingClientRect().width;
  probe.remove();
  return width;
};

Grid.prototype.now = function () { return (Date.now() + this.skew) / 1000; };

/// Pixels per minute: `zoom` minutes fill the width beside the channel column.
Grid.prototype.applyZoom = function (keepTime) {
  var visible = Math.max(120, this.scroller.clientWidth - this.channelWidth);
  var time = keepTime === undefined ? this.timeAtLeft() : keepTime;
  this.ppm = visible / this.zoom;
  this.grid.style.setProperty("--ppm", this.ppm + "px");
  var self = this;
  this.live.forEach(function (row) { self.placeCells(row); });
  this.placeNowLine();
  if (time !== null) this.scroller.scrollLeft = Math.max(0, (time - this.dayStart) / 60 * this.ppm);
};

Grid.prototype.timeAtLeft = function () {
  if (!this.ppm) return null;
  return this.dayStart + this.scroller.scrollLeft / this.ppm * 60;
};

/// Exact positions from seconds, clipped to the day: a programme is as wide as it is long.
Grid.prototype.placeCells = function (row) {
  var ppm = this.ppm, length = this.dayLength;
  Array.prototype.forEach.call(row.querySelectorAll(".p"), function (cell) {
    var start = Math.min(Math.max(Number(cell.dataset.start), 0), length);
    var end = Math.min(Math.max(Number(cell.dataset.end), 0), length);
    var width = Math.max(0, end - start) / 60 * ppm;
    cell.style.left = start / 60 * ppm + "px";
    cell.style.width = width + "px";
    cell.classList.toggle("tiny", width < 16);
  });
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
  line.style.left = this.channelWidth + (now - this.dayStart) / 60 * this.ppm + "px";
};

Grid.prototype.scrollToStart = function () {
  var focusTime = Number(this.guide.dataset.focusTime) || null;
  var now = this.now();
  var target = focusTime || (now >= this.dayStart && now < this.dayEnd ? now : null);
  if (target) this.scroller.scrollLeft = Math.max(0, (target - this.dayStart - 1800) / 60 * this.ppm);
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
    var state = Object.assign({}, history.state || {}, { day: self.day, left: self.scroller.scrollLeft, top: self.scroller.scrollTop });
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
    + (this.guide.dataset.group ? "&group=" + encodeURIComponent(this.guide.dataset.group) : "");
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

Grid.prototype.buildRow = function (data) {
  var row = document.createElement("div");
  row.className = "row";
  row.id = "row-" + data.index;
  row.dataset.index = data.index;
  row.dataset.channel = data.id;
  row.setAttribute("role", "row");
  row.setAttribute("aria-rowindex", data.index + 2);
  row.style.top = data.index * this.rowHeight + "px";
  var header = element("div", "ch");
  header.setAttribute("role", "rowheader");
  if (data.logo) {
    var logo = element("img");
    logo.src = data.logo; logo.alt = ""; logo.loading = "lazy"; logo.referrerPolicy = "no-referrer";
    header.appendChild(logo);
  }
  header.appendChild(element("span", "num", data.number || ""));
  header.appendChild(element("span", "name", data.name));
  var track = element("div", "track");
  track.setAttribute("role", "presentation");
  var length = this.dayLength, genre = this.genre;
  data.cells.forEach(function (cell) {
    var link = element("a", "p g-" + cell.genre + (cell.start < 0 ? " clip-start" : "") + (cell.end > length ? " clip-end" : "")
      + (cell.followed ? " followed" : "") + (genre && cell.genre !== genre ? " dim" : ""));
    link.href = "/programmes/" + cell.id;
    link.setAttribute("role", "gridcell");
    link.tabIndex = -1;
    link.dataset.start = cell.start;
    link.dataset.end = cell.end;
    link.appendChild(element("span", "t", cell.title));
    link.appendChild(element("span", "tm", cell.time));
    track.appendChild(link);
  });
  if (!data.cells.length) {
    var none = element("span", "no-listings", "No listings");
    none.setAttribute("role", "gridcell");
    track.appendChild(none);
  }
  row.appendChild(header);
  row.appendChild(track);
  this.placeCells(row);
  return row;
};

function element(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/// Changes the zoom in place, keeping the time at the left edge, and carries it into the day links and the URL.
Grid.prototype.setZoom = function (minutes) {
  var self = this;
  var time = this.timeAtLeft();
  this.grid.classList.remove("zoom-" + this.zoom);
  this.zoom = minutes;
  this.grid.classList.add("zoom-" + minutes);
  this.guide.dataset.zoom = minutes;
  this.guide.querySelectorAll(".zoom a").forEach(function (link) {
    var current = Number(link.dataset.zoom) === minutes;
    link.classList.toggle("current", current);
    if (current) link.setAttribute("aria-current", "true"); else link.removeAttribute("aria-current");
  });
  this.applyZoom(time);
  var url = new URL(location.href);
  url.searchParams.set("zoom", minutes);
  history.replaceState(history.state, "", url);
  this.guide.querySelectorAll(".days a, .day-picker input[name=zoom]").forEach(function (node) {
    if (node.tagName === "A") { var target = new URL(node.href); target.searchParams.set("zoom", minutes); node.href = target; }
    else node.value = minutes;
  });
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

/* The now page from the offline copy: every kept channel with what is on by the server's clock as of the copy (the
   device's clock moved by the difference seen when it was made) and what follows, drawn with the same markup as the
   server's page. Built with textContent only: titles come from other people's listings. */
function OfflineNow(list) {
  var self = this;
  this.list = list;
  fetch("/offline/listings?kept")
    .then(function (response) { return response.ok ? response.json() : null; })
    .then(function (copy) { if (copy && copy.days) { self.copy = copy; self.draw(); setInterval(function () { self.draw(); }, 30000); } });
}

OfflineNow.prototype.draw = function () {
  var now = Offline.now(), days = this.copy.days;
  var index = days.findIndex(function (day) { return day.start <= now && now < day.end; });
  var list = this.list;
  var heading = document.querySelector(".now-page h1 small");
  if (heading) heading.textContent = Offline.time(now);
  list.textContent = "";
  var pager = document.querySelector(".now-page .pager");
  if (pager) pager.hidden = true;
  if (index < 0) {
    list.appendChild(element("li", "none", "The listings kept on this device do not cover now."));
    return;
  }
  var day = days[index], following = days[index + 1];
  day.rows.forEach(function (row, position) {
    var cells = row.cells.map(function (cell) { return OfflineNow.absolute(cell, day); });
    if (following && following.rows[position]) {
      cells = cells.concat(following.rows[position].cells.map(function (cell) { return OfflineNow.absolute(cell, following); }));
    }
    var current = cells.find(function (cell) { return cell.from <= now && now < cell.to; });
    var next = cells.find(function (cell) { return cell.from >= now && cell !== current; });
    var item = element("li");
    var channel = element("div", "ch");
    if (row.number) channel.appendChild(element("span", "num", row.number));
    channel.appendChild(document.createTextNode(" "));
    channel.appendChild(element("span", "name", row.name));
    item.appendChild(channel);
    if (current) {
      var slot = element("div", "slot current");
      slot.appendChild(OfflineNow.link(current, "title"));
      slot.appendChild(element("span", "time", current.time));
      var length = Math.max(1, Math.round((current.to - current.from) / 60));
      var elapsed = Math.min(length, Math.max(0, Math.round((now - current.from) / 60)));
      var bar = element("progress");
      bar.max = length;
      bar.value = elapsed;
      bar.setAttribute("aria-label", elapsed + " of " + length + " minutes");
      slot.appendChild(bar);
      slot.appendChild(element("span", "left", Math.max(0, Math.floor((current.to - now) / 60)) + " min left"));
      item.appendChild(slot);
    } else {
      item.appendChild(element("div", "slot current none", "Nothing listed now"));
    }
    if (next) {
      var line = element("div", "slot next", "Next: ");
      line.appendChild(OfflineNow.link(next));
      line.appendChild(document.createTextNode(" "));
      line.appendChild(element("span", "time", next.time));
      item.appendChild(line);
    }
    list.appendChild(item);
  });
};

/// A grid cell with its start and end as the server's Unix seconds.
OfflineNow.absolute = function (cell, day) {
  return { id: cell.id, title: cell.title, time: cell.time, from: day.start + cell.start, to: day.start + cell.end };
};


OfflineNow.link = function (cell, className) {
  var link = element("a", className, cell.title);
  link.href = "/programmes/" + cell.id;
  return link;
};

/* "Notify this browser" on /reminders: asks for permission to notify, subscribes this browser with the server's
   VAPID key (GET /api/push-key) through the service worker, and adds the subscription as a delivery channel with
   the page's own form (its form token), once per browser. */
function PushButton(box) {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.Notification) return;
  var status = box.querySelector(".push-status");
  box.hidden = false;
  box.querySelector("button").addEventListener("click", function () {
    status.textContent = "Asking this browser…";
    Notification.requestPermission()
      .then(function (permission) {
        if (permission !== "granted") throw new Error("notifications are blocked for this site in the browser's settings");
        return navigator.serviceWorker.ready;
      })
      .then(function (registration) {
        return registration.pushManager.getSubscription().then(function (existing) {
          if (existing) return existing;
          return fetch("/api/push-key").then(function (response) {
            if (!response.ok) throw new Error("the server has no push key");
            return response.json();
          }).then(function (key) {
            return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: PushButton.bytes(key.publicKey) });
          });
        });
      })
      .then(function (subscription) {
        var json = subscription.toJSON();
        var platform = (navigator.userAgentData && navigator.userAgentData.platform) || navigator.platform || "";
        var form = new URLSearchParams({ csrf: box.dataset.csrf, kind: "webpush", name: ("This browser " + platform).trim().slice(0, 60),
                                         target: json.endpoint, secret: JSON.stringify(json.keys) });
        return fetch("/reminders/channels", { method: "POST", body: form, credentials: "same-origin" });
      })
      .then(function (response) {
        if (!response.ok) throw new Error("the server said " + response.status);
        location.href = response.url;
      })
      .catch(function (error) { status.textContent = "This browser cannot be notified: " + error.message + "."; });
  });
}

/// A base64url string (the VAPID key) as bytes.
PushButton.bytes = function (text) {
  var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(binary, function (c) { return c.charCodeAt(0); });
};
