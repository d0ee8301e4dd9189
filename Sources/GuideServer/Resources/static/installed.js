// tvguide as an installed app: the service worker's copy of the listings (sw.js) seen from the pages, the now page
// worked out from that copy with the network gone, and "Notify this browser" for push reminders. Loaded before
// guide.js, whose DOMContentLoaded handler starts them; element() is guide.js's.
"use strict";

/* The page's words for what the scripts write: <body data-words>, from each English text to the page's language
   (ScriptWords on the server), a plural to its forms in the order of "@plurals". */
var Words = null;
function wordsOfPage() {
  if (!Words) { try { Words = JSON.parse(document.body.dataset.words || "{}"); } catch (error) { Words = {}; } }
  return Words;
}

/// `text` in the page's language, its {name}s filled from `values`.
function say(text, values) {
  var said = wordsOfPage()[text];
  return fillWords(typeof said === "string" ? said : text, values);
}

/// The form of the plural whose English singular is `singular` that `count` takes in the page's language, {count}
/// written as the language writes numbers.
function sayCount(singular, plural, count, values) {
  var forms = wordsOfPage()[singular], categories = wordsOfPage()["@plurals"] || ["one", "other"];
  var category = new Intl.PluralRules(document.documentElement.lang || "en").select(count);
  var text = Array.isArray(forms) ? forms[Math.max(0, categories.indexOf(category))] || forms[forms.length - 1] : (count === 1 ? singular : plural);
  return fillWords(text, Object.assign({ count: localNumber(count) }, values || {}));
}

/// `value` as the page's language writes a number.
function localNumber(value) { return new Intl.NumberFormat(document.documentElement.lang || "en").format(value); }

function fillWords(text, values) {
  return text.replace(/\{(\w+)\}/g, function (whole, name) { return values && name in values ? String(values[name]) : whole; });
}

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
  /// "14:05" in the copy's zone, or "2:05 PM" where the page says the viewer reads 12 hours (data-hours), in the page's language.
  time: function (seconds, zone) {
    var root = document.documentElement, twelve = root.dataset.hours === "h12";
    return new Intl.DateTimeFormat(root.lang || "en", { hour: twelve ? "numeric" : "2-digit", minute: "2-digit", hourCycle: twelve ? "h12" : "h23",
                                                        timeZone: zone || Offline.zone })
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
    banner.textContent = say("Offline - listings as of {time}", { time: Offline.time(taken, zone) });
    banner.hidden = false;
  }
};

/* Registers the service worker and asks it to bring its copy up to date whenever a page opens online (it asks the
   server at most every two minutes, at once when the viewer changed) and at once when the network comes back. Only
   once the page has loaded: the worker's start and its copy would otherwise compete with the page's own first paint
   (on a slow phone the grid reached DOMContentLoaded a second later). */
(function installedGuide() {
  if (!("serviceWorker" in navigator)) return;
  if (document.readyState !== "complete") { window.addEventListener("load", installedGuide); return; }
  navigator.serviceWorker.register("/sw.js").then(function (registration) {
    var refresh = function (now) {
      var worker = navigator.serviceWorker.controller || registration.active;
      if (worker) worker.postMessage({ type: "refresh", viewer: document.body.dataset.viewer || "", force: now === true });
    };
    if (!Offline.isKept()) navigator.serviceWorker.ready.then(refresh);
    // Signing out forgets the profile's copy on this device before the server is even asked (the next page's refresh
    // would too, but a guest's copy may be refused, and nothing of the profile's may stay meanwhile).
    document.querySelectorAll('form[action="/signout"]').forEach(function (form) {
      form.addEventListener("submit", function () {
        var worker = navigator.serviceWorker.controller || registration.active;
        if (worker) worker.postMessage({ type: "forget" });
      });
    });
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

/* The now page from the offline copy: every kept channel with what is on by the server's clock as of the copy (the
   device's clock moved by the difference seen when it was made) and what follows, drawn with the same markup as the
   server's page. What is on is read from the kept rows' markup in an inert template, and the list built with
   textContent only: titles come from other people's listings. */
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
    list.appendChild(element("li", "none", say("The listings kept on this device do not cover now.")));
    return;
  }
  var day = days[index], following = days[index + 1];
  day.rows.forEach(function (kept, position) {
    var row = OfflineNow.read(kept, day), cells = row.cells;
    if (following && following.rows[position]) cells = cells.concat(OfflineNow.read(following.rows[position], following).cells);
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
      bar.setAttribute("aria-label", say("{elapsed} of {length} minutes", { elapsed: localNumber(elapsed), length: localNumber(length) }));
      slot.appendChild(bar);
      slot.appendChild(element("span", "left", sayCount("{count} min left", "{count} min left", Math.max(0, Math.floor((current.to - now) / 60)))));
      item.appendChild(slot);
    } else {
      item.appendChild(element("div", "slot current none", say("Nothing listed now")));
    }
    if (next) {
      // "Next: {title}" in the language's order, the title a link.
      var line = element("div", "slot next");
      var parts = say("Next: {title}").split("{title}");
      line.appendChild(document.createTextNode(parts[0]));
      line.appendChild(OfflineNow.link(next));
      line.appendChild(document.createTextNode((parts[1] || "") + " "));
      line.appendChild(element("span", "time", next.time));
      item.appendChild(line);
    }
    list.appendChild(item);
  });
};

/// A kept row's channel and programmes, read from its markup (the grid's own, GridRowsHTML): each programme's start
/// and end as the server's Unix seconds.
OfflineNow.read = function (row, day) {
  var holder = document.createElement("template");
  holder.innerHTML = row.html;
  var text = function (node, selector) { var found = node.querySelector(selector); return found ? found.textContent : ""; };
  return {
    number: text(holder.content, ".ch .num"), name: text(holder.content, ".ch .name"),
    cells: Array.prototype.map.call(holder.content.querySelectorAll(".p"), function (cell) {
      return { id: cell.getAttribute("href").split("/").pop(), title: text(cell, ".t"), time: text(cell, ".tm"),
               from: day.start + Number(cell.dataset.start), to: day.start + Number(cell.dataset.end) };
    })
  };
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
    status.textContent = say("Asking this browser…");
    Notification.requestPermission()
      .then(function (permission) {
        if (permission !== "granted") throw new Error(say("notifications are blocked for this site in the browser's settings"));
        return navigator.serviceWorker.ready;
      })
      .then(function (registration) {
        return registration.pushManager.getSubscription().then(function (existing) {
          if (existing) return existing;
          return fetch("/api/push-key").then(function (response) {
            if (!response.ok) throw new Error(say("the server has no push key"));
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
        if (!response.ok) throw new Error(say("the server said {status}", { status: response.status }));
        location.href = response.url;
      })
      .catch(function (error) { status.textContent = say("This browser cannot be notified: {reason}.", { reason: error.message }); });
  });
}

/// A base64url string (the VAPID key) as bytes.
PushButton.bytes = function (text) {
  var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(binary, function (c) { return c.charCodeAt(0); });
};
