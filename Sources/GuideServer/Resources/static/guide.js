// tvguide: the pages work without these scripts. This one adds the browser's time zone, starts the grid (grid.js) and
// the installed app (installed.js), and runs the admin pages' forms and live refresh view.
"use strict";

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

// A channel logo that cannot be had (its address gone, the network down) is left out rather than shown broken: error
// events do not bubble, so they are caught on their way down, for logos already in the page and those rows bring later.
document.addEventListener("error", function (event) {
  var image = event.target;
  if (image && image.tagName === "IMG" && image.closest(".ch, .logo-cell")) image.style.visibility = "hidden";
}, true);

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
  if (document.documentElement.classList.contains("tv")) television(guide);
});

/// TV mode outside the grid (which drives itself: grid-navigation.js): a programme's page opens on its first action,
/// so OK watches or sets a reminder, and the remote's Back goes back.
function television(guide) {
  if (!guide) {
    var details = document.querySelector("main .details");
    var first = details && Grid.primaryAction(details);
    if (first) first.focus();
  }
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || !Grid.isBack(event)) return;
    var panel = document.getElementById("panel");
    if (panel && !panel.hidden) return;
    if (history.length > 1) { event.preventDefault(); history.back(); }
  });
}

/* Admin forms: keep or drop every channel on a page (a source's, or a grabber's to choose); confirm before removing a
   source; a grabber's configuration file loaded into its text box (read here, posted with the form). */
function adminForms() {
  Array.prototype.forEach.call(document.querySelectorAll("[data-check]"), function (button) {
    button.addEventListener("click", function () {
      var checked = button.dataset.check === "all";
      Array.prototype.forEach.call(button.form.querySelectorAll("input[name=keep], input[name=channel]"), function (box) { box.checked = checked; });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("input[type=file][data-fills]"), function (input) {
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      if (!file) return;
      file.text().then(function (text) { document.getElementById(input.dataset.fills).value = text; });
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

RefreshView.megabytes = function (bytes) {
  var size = new Intl.NumberFormat(document.documentElement.lang || "en", { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(bytes / 1e6);
  return say("{size} MB", { size: size });
};

RefreshView.prototype.show = function (progress) {
  var box = this.box;
  box.textContent = "";
  box.dataset.running = progress.running ? "true" : "false";
  if (!progress.sources.length) { box.appendChild(element("p", "progress-summary", say("No refresh has run since the server started."))); return; }
  var done = { done: localNumber(progress.downloadsDone) };
  box.appendChild(element("p", "progress-summary", progress.running
    ? sayCount("Refreshing: {done} of {count} download done", "Refreshing: {done} of {count} downloads done", progress.downloadsTotal, done)
    : sayCount("Last refresh: {done} of {count} download done", "Last refresh: {done} of {count} downloads done", progress.downloadsTotal, done)));
  var overall = element("progress");
  overall.max = Math.max(progress.downloadsTotal, 1);
  overall.value = progress.downloadsDone;
  overall.setAttribute("aria-label", say("Downloads done"));
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
        line.appendChild(element("span", undefined, " " + say("{percent}% of {size}", { percent: localNumber(feed.percent), size: RefreshView.megabytes(feed.totalBytes) })));
      } else {
        line.appendChild(element("span", undefined, " " + sayCount("{size}, {count} programme", "{size}, {count} programmes", feed.programmes,
                                                                  { size: RefreshView.megabytes(feed.bytes) })));
      }
      if (feed.attempt > 1) {
        line.appendChild(element("span", undefined, " " + (feed.retryReason ? say("(try {attempt}: {reason})", { attempt: localNumber(feed.attempt), reason: feed.retryReason })
                                                                             : say("(try {attempt})", { attempt: localNumber(feed.attempt) }))));
      }
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

/// A new element with `className` and `text` (as text, never markup).
function element(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
