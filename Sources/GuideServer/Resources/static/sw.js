// tvguide's service worker, served at /sw.js so it looks after every page. It keeps a copy of the viewer's listings
// (GET /offline/listings: the grid's rows and every programme's details panel for the next days) with the pages
// made for it and its channels' logos, and the app's files; with the network gone it answers the grid, the now page
// and programme details from them, marked "offline" for the page's script to say so. It also shows reminders pushed to this browser.
//
// Bounded: one copy (the server caps its channels, days and panels), the pages and logos it names, and one version of
// the app's files; caches of any other name or version are deleted.
"use strict";

const FORMAT = 2;                      // the copy's format this worker reads (OfflineGuide.format)
const LISTINGS = "tvguide-listings-v" + FORMAT;
const FILES = "tvguide-files-";        // + the assets' version
const COPY = "/offline/listings";
const NETWORK_WAIT = 6000;             // ms a request waits for the server before the kept copy answers
const ASK_EVERY = 2 * 60 * 1000;       // ms between asking whether the copy changed, unless the viewer did

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("tvguide-") && name !== LISTINGS && !name.startsWith(FILES)) await caches.delete(name);
    }
    await self.clients.claim();
    await refreshTrying({ force: true });
  })());
});

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "refresh") event.waitUntil(refreshTrying({ viewer: data.viewer, force: data.force === true }));
  // Signing out: the profile's copy goes from this device at once, whatever the server answers next.
  if (data.type === "forget") event.waitUntil(caches.delete(LISTINGS).then(() => { memo = null; }));
});

self.addEventListener("periodicsync", (event) => {
  if (event.tag === "tvguide-listings") event.waitUntil(refresh({ force: true }).catch(() => {}));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method !== "GET") {
    // A form sent offline gets the page that says what works without the network, not the browser's error.
    if (request.mode === "navigate") event.respondWith(fetch(request).catch(() => keptPage(new URL("/offline", url))));
    return;
  }
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(caches.match(request).then((kept) => kept || fetch(request)));
  } else if (url.pathname === "/logo") {
    // A logo's address names its version: a kept one is the one asked for.
    event.respondWith(caches.match(request, { cacheName: LISTINGS }).then((kept) => kept || fetch(request)));
  } else if (url.pathname === COPY && url.searchParams.has("kept")) {
    event.respondWith(keptCopyResponse());
  } else if (request.mode === "navigate") {
    event.respondWith(networkFirst(request, (orOffline) => keptPage(url, orOffline)));
  } else if (url.pathname === "/grid/rows") {
    event.respondWith(networkFirst(request, () => keptRows(url)));
  } else if (/^\/programmes\/\d+$/.test(url.pathname) && url.searchParams.get("part") === "panel") {
    event.respondWith(networkFirst(request, () => keptPanel(url.pathname.split("/")[2])));
  }
});

self.addEventListener("push", (event) => {
  let message;
  try { message = event.data ? event.data.json() : {}; } catch (error) { message = { body: event.data.text() }; }
  event.waitUntil(self.registration.showNotification(message.title || "tvguide", {
    body: message.body || "", tag: message.id, icon: "/static/icon-192.png", badge: "/static/favicon-32.png",
    data: { link: message.link || "/reminders" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const link = new URL(event.notification.data && event.notification.data.link || "/reminders", self.location.origin);
  event.waitUntil((async () => {
    for (const client of await self.clients.matchAll({ type: "window" })) {
      if (new URL(client.url).origin === link.origin && "navigate" in client) { await client.focus(); return client.navigate(link.href); }
    }
    return self.clients.openWindow(link.href);
  })());
});

/// The server's answer, unless it fails, errs (5xx) or takes longer than NETWORK_WAIT: then what `kept` finds. Only
/// a failure falls back to the page that says what works offline (`kept(true)`); a slow page the copy holds nothing
/// of (an admin's page probing grabbers) still gets the server's answer when it comes.
async function networkFirst(request, kept) {
  const asked = fetch(request);
  asked.catch(() => {});   // answered from the copy, a later failure is nobody's business
  let answer = null;
  try {
    answer = await Promise.race([asked, new Promise((resolve) => setTimeout(resolve, NETWORK_WAIT, null))]);
    if (answer && answer.status < 500) return answer;
  } catch (error) {
    return (await kept(true).catch(() => null)) || Response.error();
  }
  const copy = await kept(answer !== null).catch(() => null);
  if (copy) return copy;
  return answer || asked.catch(async () => (await kept(true).catch(() => null)) || Response.error());
}

// The copy ------------------------------------------------------------------------------------------------------

let refreshing = null;
let memo = null;   // { stamp, document }: the kept copy, parsed once

/// Asks the server for the copy (a 304 when unchanged) unless it was asked within ASK_EVERY and the viewer is the
/// copy's; keeps a new copy only with every page it names, then deletes what the old one named.
function refresh({ force = false, viewer } = {}) {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    const cache = await caches.open(LISTINGS);
    const kept = await cache.match(COPY);
    const stamp = kept ? Number(kept.headers.get("X-Tvguide-Received")) : 0;
    const keptViewer = kept ? kept.headers.get("X-Tvguide-Viewer") : null;
    const sameViewer = viewer === undefined || viewer === keptViewer;
    if (!force && sameViewer && Date.now() - stamp < ASK_EVERY) return;
    if (kept && !sameViewer) {
      // Another viewer now (signed out, or in as someone else): the old one's copy is deleted before the new one is
      // asked for, so a refused or failed request leaves nothing of theirs behind.
      await caches.delete(LISTINGS);
      memo = null;
      return refreshFresh(await caches.open(LISTINGS));
    }
    return refreshFresh(cache, kept, keptViewer);
  })().finally(() => { refreshing = null; });
  return refreshing;
}

/// Fetches the copy into `cache` (sending the kept one's ETag when `kept` is the same viewer's).
async function refreshFresh(cache, kept, keptViewer) {
  {
    const headers = {};
    if (kept && kept.headers.get("ETag")) headers["If-None-Match"] = kept.headers.get("ETag");
    const response = await fetch(COPY, { headers, cache: "no-store", credentials: "same-origin" });
    if (response.status === 304 && kept) {
      await cache.put(COPY, stamped(await kept.text(), kept.headers.get("ETag"), keptViewer));
      return;
    }
    if (!response.ok) return;
    const text = await response.text();
    const document = JSON.parse(text);
    if (document.format !== FORMAT) return;
    const pages = document.days.map((day) => day.page).concat(document.pages);
    const fetched = await Promise.all(pages.map((page) => fetch(page, { cache: "no-store", credentials: "same-origin" })));
    if (fetched.some((page) => !page.ok)) return;
    const files = FILES + document.assets;
    const filesCache = await caches.open(files);
    await filesCache.addAll(document.files);
    for (let i = 0; i < pages.length; i++) await cache.put(pages[i], fetched[i]);
    // The channels' logos: a logo that cannot be fetched leaves the channel's name to show.
    const logos = document.logos || [];
    for (const logo of logos) {
      if (await cache.match(logo)) continue;
      try {
        const answer = await fetch(logo, { credentials: "same-origin" });
        if (answer.ok) await cache.put(logo, answer);
      } catch (error) { /* the next copy tries again */ }
    }
    await cache.put(COPY, stamped(text, response.headers.get("ETag"), document.viewer));
    for (const request of await cache.keys()) {
      const path = new URL(request.url);
      const key = path.pathname + path.search;
      if (key !== COPY && !pages.includes(key) && !logos.includes(key)) await cache.delete(request);
    }
    for (const name of await caches.keys()) {
      if (name.startsWith(FILES) && name !== files) await caches.delete(name);
    }
    memo = null;
  }
}

/// ``refresh``, tried again after 5, 10 and 20 seconds while the server cannot be reached: a network coming back
/// often answers a moment after it says it is back.
async function refreshTrying(options) {
  for (const wait of [0, 5000, 10000, 20000]) {
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      await refresh(options);
      return;
    } catch (error) {
      // Unreachable (a TypeError from fetch) or a copy that did not arrive whole: try again.
    }
  }
}

/// The copy's JSON with when this device received it (for the offline pages' clock) and whose it is.
function stamped(text, tag, viewer) {
  const headers = { "Content-Type": "application/json", "X-Tvguide-Received": String(Date.now()), "X-Tvguide-Viewer": viewer || "" };
  if (tag) headers.ETag = tag;
  return new Response(text, { headers });
}

/// The kept copy, parsed: { document, received }, or null.
async function keptCopy() {
  const kept = await caches.match(COPY, { cacheName: LISTINGS });
  if (!kept) return null;
  const stamp = kept.headers.get("X-Tvguide-Received");
  if (!memo || memo.stamp !== stamp) memo = { stamp, document: await kept.json() };
  return { document: memo.document, received: Number(stamp) };
}

/// The copy for the page's script (the offline now page), without its panels.
async function keptCopyResponse() {
  const copy = await keptCopy();
  if (!copy) return new Response("{}", { status: 404, headers: { "Content-Type": "application/json" } });
  const document = Object.assign({}, copy.document, { panels: {}, received: copy.received });
  return new Response(JSON.stringify(document), { headers: { "Content-Type": "application/json" } });
}

/// The server's clock when the copy was made, less this device's then: added to the device's clock, the server's
/// idea of now.
function skew(copy) {
  return copy.document.takenAt * 1000 - copy.received;
}

/// A kept page for `url`: the grid for its day (or the day it is now, by the server's clock), the now page, a
/// programme's details around the offline page, else the offline page; marked with when the copy was made.
async function keptPage(url, orOffline = true) {
  const copy = await keptCopy();
  const cache = await caches.open(LISTINGS);
  let page = null;
  let panel = null;
  if (copy && url.pathname === "/") {
    const days = copy.document.days;
    const now = (Date.now() + skew(copy)) / 1000;
    const day = days.find((d) => d.day === url.searchParams.get("day")) || days.find((d) => d.start <= now && now < d.end) || days[0];
    if (day) page = await cache.match(day.page);
  } else if (url.pathname === "/now") {
    page = await cache.match("/now");
  } else if (copy && /^\/programmes\/\d+$/.test(url.pathname)) {
    panel = copy.document.panels[url.pathname.split("/")[2]] || null;
  }
  if (!page && !panel && !orOffline) return null;
  if (!page) page = await cache.match("/offline");
  if (!page) return null;
  let html = await page.text();
  if (panel) html = html.replace(/<!--offline-content-->[\s\S]*<!--\/offline-content-->/, () => panel);
  if (copy) {
    const marks = { taken: copy.document.takenAt, skew: skew(copy), zone: copy.document.zone };
    html = html.replace("<html ", () => "<html " + Object.keys(marks).map((name) =>
      "data-offline-" + name + '="' + String(marks[name]).replace(/[^\w\/+\-.]/g, "") + '" ').join(""));
  }
  return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}

/// `/grid/rows` from the copy: the day's rows from `from`, `count` of them.
async function keptRows(url) {
  const copy = await keptCopy();
  if (!copy) return null;
  const day = copy.document.days.find((d) => d.day === url.searchParams.get("day"));
  const from = Math.max(0, Number(url.searchParams.get("from")) || 0);
  const count = Math.min(60, Math.max(1, Number(url.searchParams.get("count")) || 40));
  const rows = day ? day.rows.slice(from, from + count) : [];
  return new Response(JSON.stringify({ from, rows }), { headers: { "Content-Type": "application/json" } });
}

/// A programme's details panel from the copy.
async function keptPanel(id) {
  const copy = await keptCopy();
  const panel = copy && copy.document.panels[id];
  return panel ? new Response(panel, { headers: { "Content-Type": "text/html; charset=utf-8" } }) : null;
}
