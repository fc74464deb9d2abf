extension GalleryPage {
    /// The page's script: the entry current now in every card (switching at the next entry's date),
    /// relative times, the size buttons (and `?family=`), one card alone with `?widget=`, marks on images (`data-state` `loaded` or `broken`; a broken one
    /// is hidden), and, when the page is served over HTTP, polling `index.json` to replace changed cards.
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

          const poll = async () => {
            try {
              const answer = await fetch('index.json', { cache: 'no-store' });
              if (answer.ok) {
                const index = await answer.json();
                const only = meta('widgetd-widget');
                const listed = only ? (index.widgets || []).find((widget) => widget.id === only.content) : index;
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

          watchImages(document);
          showOnly();
          update();
          if (location.protocol === 'http:' || location.protocol === 'https:') setTimeout(poll, pollSeconds * 1000);
          root.dataset.ready = 'true';
        })();
        """#
}
