extension GalleryPage {
    /// The page's script: the entry current now in every card (switching at the next entry's date),
    /// relative times, the size buttons (and `?family=`), one card alone with `?widget=`, marks on images (`data-state` `loaded` or `broken`; a broken one
    /// is hidden), and, when the page is served over HTTP, polling `index.json` to replace changed cards.
    ///
    /// On the gallery of several shards (``ShardGalleryPage``, marked by a `widgetd-shards` meta element) it
    /// polls each shard's part instead, `shards/K-of-N.json`, fetches the part's page `shards/K-of-N.html`
    /// when the part's `generation` changes, and shows every part's cards in one grid, sorted by id, with a
    /// line per shard that says when it last wrote, or that it has not written yet, or is late. A widget's
    /// own page, when `index.json` is such a manifest, finds its widget in the parts.
    ///
    /// It never builds markup from data: the only HTML it inserts is the page's own, fetched again from
    /// the same origin, whose cards the daemon rendered and escaped.
    public static let script = #"""
        (() => {
          'use strict';
          const root = document.documentElement;
          const query = new URLSearchParams(location.search);
          const fixed = Date.parse(query.get('now') || '');
          const started = performance.now();
          const now = () => Number.isNaN(fixed) ? Date.now() : fixed + (performance.now() - started);
          const buttons = Array.from(document.querySelectorAll('.families button'));
          const choose = (family) => {
            if (!buttons.some((button) => button.dataset.family === family)) return;
            root.dataset.family = family;
            for (const button of buttons) button.setAttribute('aria-pressed', String(button.dataset.family === family));
          };
          choose(query.get('family') || root.dataset.family);
          for (const button of buttons) button.addEventListener('click', () => choose(button.dataset.family));
          const only = query.get('widget');
          if (only) root.dataset.widget = only;
          const showOnly = () => {
            if (!only) return;
            for (const card of document.querySelectorAll('.card')) card.hidden = card.dataset.id !== only;
          };
          const meta = (name) => document.querySelector('meta[name="' + name + '"]');
          const polled = Number(query.get('poll'));
          const pollSeconds = polled > 0 ? polled : Number(meta('widgetd-poll').content) || 10;

          const relative = (ms) => {
            const past = ms < 0;
            const seconds = Math.round(Math.abs(ms) / 1000);
            let text;
            if (seconds < 45) return past ? 'just now' : 'in a moment';
            if (seconds < 3600) text = Math.round(seconds / 60) + ' min';
            else if (seconds < 86400) text = Math.round(seconds / 3600) + ' h';
            else text = Math.round(seconds / 86400) + ' d';
            return past ? text + ' ago' : 'in ' + text;
          };

          const watchImages = (scope) => {
            for (const image of scope.querySelectorAll('img')) {
              const mark = () => { image.dataset.state = image.naturalWidth > 0 ? 'loaded' : 'broken'; };
              if (image.complete) mark();
              else {
                image.addEventListener('load', mark, { once: true });
                image.addEventListener('error', mark, { once: true });
              }
            }
          };

          let timer = 0;
          const update = () => {
            const at = now();
            let next = Infinity;
            for (const card of document.querySelectorAll('.card')) {
              const entries = Array.from(card.querySelectorAll('.entries > .entry[data-date]'));
              let current = 0;
              entries.forEach((entry, index) => {
                const date = Date.parse(entry.dataset.date);
                if (date <= at) current = index;
                else if (date < next) next = date;
              });
              entries.forEach((entry, index) => { entry.hidden = index !== current; });
              if (entries.length > 0) card.dataset.current = String(current);
            }
            for (const time of document.querySelectorAll('time[data-relative]')) {
              time.textContent = relative(Date.parse(time.dateTime) - at);
              time.title = time.dateTime;
            }
            clearTimeout(timer);
            timer = setTimeout(update, Math.max(200, Math.min(30000, next - at + 20)));
          };

          let refreshes = 0;
          const replaceCards = (fresh) => {
            const gallery = document.getElementById('gallery');
            const incoming = fresh.getElementById('gallery');
            if (!gallery || !incoming) return;
            const old = new Map();
            for (const element of Array.from(gallery.children)) old.set(element.id || element.textContent, element);
            let previous = null;
            for (const card of Array.from(incoming.children)) {
              const key = card.id || card.textContent;
              let element = old.get(key);
              if (!element || element.dataset.generation !== card.dataset.generation) {
                const imported = document.importNode(card, true);
                if (element) element.replaceWith(imported);
                element = imported;
                watchImages(element);
              }
              old.delete(key);
              const wanted = previous ? previous.nextElementSibling : gallery.firstElementChild;
              if (wanted !== element) gallery.insertBefore(element, wanted);
              previous = element;
            }
            for (const element of old.values()) element.remove();
            const header = document.getElementById('meta');
            const incomingHeader = fresh.getElementById('meta');
            if (header && incomingHeader) header.replaceWith(document.importNode(incomingHeader, true));
            meta('widgetd-generation').content = fresh.querySelector('meta[name="widgetd-generation"]').content;
            showOnly();
            refreshes += 1;
            root.dataset.refreshes = String(refreshes);
            update();
          };

          // The widgets of every part a manifest lists (a part that cannot be read has none).
          const partWidgets = async (names) => {
            const lists = await Promise.all(names.filter((name) => typeof name === 'string').map(async (name) => {
              try {
                const answer = await fetch(name, { cache: 'no-store' });
                return answer.ok ? ((await answer.json()).widgets || []) : [];
              } catch (error) {
                return [];
              }
            }));
            return lists.flat();
          };

          const poll = async () => {
            try {
              const answer = await fetch('index.json', { cache: 'no-store' });
              if (answer.ok) {
                const index = await answer.json();
                const only = meta('widgetd-widget');
                let widgets = index.widgets || [];
                if (only && Array.isArray(index.parts)) widgets = await partWidgets(index.parts);
                const listed = only ? widgets.find((widget) => widget.id === only.content) : index;
                const generation = listed ? listed.generation : undefined;
                if (typeof generation === 'string' && generation !== meta('widgetd-generation').content) {
                  const page = await fetch(location.pathname, { cache: 'no-store' });
                  if (page.ok) replaceCards(new DOMParser().parseFromString(await page.text(), 'text/html'));
                }
              }
            } catch (error) {
              // The server is away for a moment: the cards stay as they are.
            }
            setTimeout(poll, pollSeconds * 1000);
          };

          // The gallery of several shards: every part's cards in one grid.
          const shardCount = meta('widgetd-shards') ? Number(meta('widgetd-shards').content) : 0;
          const lateSeconds = 120;
          const parts = [];
          for (let number = 1; number <= shardCount; number += 1) {
            parts.push({
              number, name: 'shards/' + number + '-of-' + shardCount, line: document.getElementById('shard-' + number),
              generation: null, cards: [], read: false, failed: false, wroteAt: NaN, nextWriteAt: NaN, count: 0,
            });
          }
          const byID = (a, b) => (a.dataset.id < b.dataset.id ? -1 : a.dataset.id > b.dataset.id ? 1 : 0);
          const assemble = () => {
            const gallery = document.getElementById('gallery');
            const wanted = parts.flatMap((part) => part.cards).sort(byID);
            const keep = new Set(wanted);
            for (const element of Array.from(gallery.children)) if (!keep.has(element)) element.remove();
            let previous = null;
            for (const element of wanted) {
              const next = previous ? previous.nextElementSibling : gallery.firstElementChild;
              if (next !== element) gallery.insertBefore(element, next);
              previous = element;
            }
            const count = wanted.length === 1 ? '1 widget' : wanted.length + ' widgets';
            const read = parts.filter((part) => part.read).length;
            document.getElementById('meta').textContent = count + ' · ' + read + ' of ' + shardCount + ' shards read';
          };
          const describe = (part) => {
            if (!part.line) return;
            const label = 'shard ' + part.number + '/' + shardCount;
            const at = now();
            let state;
            let text;
            if (!part.read) {
              state = 'missing';
              text = label + (part.failed ? ' has not written yet' : ': not read yet');
            } else if (part.failed || (!Number.isNaN(part.nextWriteAt) && at > part.nextWriteAt + lateSeconds * 1000)) {
              state = 'old';
              text = label + ' last wrote ' + relative(part.wroteAt - at);
            } else {
              state = 'ok';
              text = label + ': ' + (part.count === 1 ? '1 widget' : part.count + ' widgets') + ', wrote ' + relative(part.wroteAt - at);
            }
            part.line.dataset.state = state;
            part.line.textContent = text;
            part.line.title = Number.isNaN(part.wroteAt) ? part.name + '.json' : part.name + '.json, ' + new Date(part.wroteAt).toISOString();
          };
          const readPart = async (part) => {
            try {
              const answer = await fetch(part.name + '.json', { cache: 'no-store' });
              if (!answer.ok) throw new Error(String(answer.status));
              const index = await answer.json();
              part.failed = false;
              part.wroteAt = Date.parse(index.generatedAt || '');
              part.nextWriteAt = Date.parse(index.nextWriteAt || '');
              part.count = (index.widgets || []).length;
              if (typeof index.generation !== 'string' || index.generation === part.generation) return false;
              const page = await fetch(part.name + '.html', { cache: 'no-store' });
              if (!page.ok) return false;
              const incoming = new DOMParser().parseFromString(await page.text(), 'text/html').getElementById('gallery');
              if (!incoming) return false;
              const old = new Map(part.cards.map((card) => [card.id, card]));
              part.cards = Array.from(incoming.children).filter((card) => card.matches('article.card')).map((card) => {
                const element = old.get(card.id);
                if (element && element.dataset.generation === card.dataset.generation) return element;
                const imported = document.importNode(card, true);
                watchImages(imported);
                return imported;
              });
              part.generation = index.generation;
              part.read = true;
              return true;
            } catch (error) {
              // Not written yet, or the server is away for a moment: what was shown stays.
              part.failed = true;
              return false;
            }
          };
          const pollParts = async () => {
            const changed = await Promise.all(parts.map(readPart));
            if (changed.some(Boolean)) {
              assemble();
              showOnly();
              refreshes += 1;
              root.dataset.refreshes = String(refreshes);
            }
            for (const part of parts) describe(part);
            root.dataset.parts = String(parts.filter((part) => part.read).length);
            update();
            setTimeout(pollParts, pollSeconds * 1000);
          };

          watchImages(document);
          showOnly();
          update();
          const served = location.protocol === 'http:' || location.protocol === 'https:';
          if (shardCount > 0) {
            root.dataset.served = String(served);
            if (served) pollParts();
          } else if (served) setTimeout(poll, pollSeconds * 1000);
          root.dataset.ready = 'true';
        })();
        """#
}
