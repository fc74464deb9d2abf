import Foundation
import WidgetCore

extension GalleryPage {
    /// The page's style sheet: light and dark by the system's preference, a grid of cards that is one
    /// column on a phone, each family's size (roughly WidgetKit's), and the classes views may use (see
    /// "Views" in the gallery article of the documentation).
    public static let style = """
        :root{color-scheme:light dark;--bg:#f3f4f6;--card:#fff;--text:#111827;--muted:#6b7280;--line:#e5e7eb;--accent:#2563eb;\
        --pos:#047857;--neg:#b91c1c;--fresh:#047857;--cached:#b45309;--stale:#b91c1c;--placeholder:#6b7280;--shadow:0 1px 3px rgba(0,0,0,.08);\
        --lock:#1f2937;--lock-text:#f9fafb;--card-width:320px}
        @media (prefers-color-scheme:dark){:root{--bg:#0b0f17;--card:#161b26;--text:#e5e7eb;--muted:#9ca3af;--line:#273042;\
        --accent:#60a5fa;--pos:#34d399;--neg:#f87171;--fresh:#34d399;--cached:#fbbf24;--stale:#f87171;--placeholder:#9ca3af;--shadow:none;\
        --lock:#000;--lock-text:#f3f4f6}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--text);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
        .top{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem 1rem;padding:1rem 1.25rem .25rem}
        .top h1{margin:0;font-size:1.35rem}.top .meta{margin:0;color:var(--muted);font-size:.85rem;flex:1}
        .families{display:flex;flex-wrap:wrap;gap:.25rem .6rem}.families .group{display:flex;gap:.25rem}\
        .families button{font:inherit;font-size:.8rem;border:1px solid var(--line);background:var(--card);\
        color:var(--text);border-radius:6px;padding:.1rem .55rem;cursor:pointer}
        \(familyRules("html[data-family=F] .families [data-family=F]"))\
        {background:var(--accent);border-color:var(--accent);color:#fff}
        html[data-family=small]{--card-width:170px}html[data-family=large]{--card-width:440px}html[data-family=extraLarge]{--card-width:680px}
        html[data-family^=accessory]{--card-width:220px}
        .grid{display:grid;gap:1rem;padding:1rem 1.25rem 2rem;grid-template-columns:repeat(auto-fill,minmax(var(--card-width),1fr));align-items:start}
        @media (max-width:520px){.grid,html[data-family] .grid{grid-template-columns:1fr;padding:.75rem}.top{padding:.75rem .75rem 0}}
        .shard-list{list-style:none;display:flex;flex-wrap:wrap;gap:.3rem .5rem;margin:0;padding:.5rem 1.25rem 0}\
        .shard-list li{font-size:.78rem;border:1px solid var(--line);border-radius:999px;padding:.1rem .6rem;color:var(--muted);background:var(--card)}\
        .shard-list li[data-state=ok]{color:var(--fresh)}.shard-list li[data-state=old]{color:var(--cached);border-color:currentColor}\
        .shard-list li[data-state=missing]{color:var(--stale);border-color:currentColor}
        .shard-note{padding:.5rem 1.25rem 0;margin:0;font-size:.85rem}html[data-served=true] .shard-note{display:none}
        .card[hidden]{display:none}html[data-widget] .top{display:none}
        html[data-widget] .grid{display:block;padding:.75rem}html[data-widget] .card{width:var(--card-width);max-width:100%}
        .card{background:var(--card);border:1px solid var(--line);border-radius:16px;box-shadow:var(--shadow);overflow:hidden;\
        display:flex;flex-direction:column;min-width:0}
        .card>header{display:flex;align-items:center;gap:.5rem;padding:.7rem .9rem .35rem}
        .card>header h2{margin:0;font-size:1rem;flex:1;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .badge{font-size:.72rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;border-radius:999px;padding:.1rem .5rem;\
        border:1px solid currentColor;position:relative;flex:none}
        details.badge>summary{cursor:pointer;list-style:none}details.badge>summary::-webkit-details-marker{display:none}
        .badge-icon{display:inline-block;width:1.05em;height:1.05em;margin-left:.3em;vertical-align:-.18em}
        details.badge .error p{margin:0}details.badge .error p+p{margin-top:.4rem}
        details.badge .error{position:absolute;right:0;top:1.6rem;z-index:2;width:min(18rem,70vw);margin:0;padding:.5rem .6rem;\
        background:var(--card);color:var(--text);border:1px solid var(--line);border-radius:8px;box-shadow:0 4px 14px rgba(0,0,0,.2);\
        font-weight:400;text-transform:none;letter-spacing:0;font-size:.8rem;overflow-wrap:anywhere}
        .badge-fresh{color:var(--fresh)}.badge-cached{color:var(--cached)}.badge-stale{color:var(--stale)}.badge-placeholder{color:var(--placeholder)}.badge-refreshing{color:var(--placeholder)}
        .entries{flex:1;padding:0 .9rem .6rem}.entry[hidden]{display:none}
        .card>footer{display:flex;flex-wrap:wrap;gap:.15rem .9rem;padding:.45rem .9rem .6rem;border-top:1px solid var(--line);\
        color:var(--muted);font-size:.78rem}
        .view:not([data-family=all]){display:none}
        \(familyRules("html[data-family=F] .view[data-family~=F]")){display:block}
        html[data-family=small] .entries{aspect-ratio:1}html[data-family=medium] .entries{aspect-ratio:2/1}
        html[data-family=large] .entries{aspect-ratio:1}html[data-family=extraLarge] .entries{aspect-ratio:2/1}
        .view-unavailable p{margin:.4rem 0;padding:1.2rem .6rem;text-align:center;color:var(--muted);font-size:.85rem;\
        border:1px dashed var(--line);border-radius:10px}
        html[data-family^=accessory] .view:not(.view-unavailable){background:var(--lock);color:var(--lock-text);overflow:hidden;\
        margin:.4rem 0;font-size:.8rem;line-height:1.25}
        html[data-family^=accessory] .view:not(.view-unavailable) *{color:inherit}
        html[data-family^=accessory] .view .muted{opacity:.7}
        html[data-family=accessoryCircular] .view[data-family~=accessoryCircular]:not(.view-unavailable){display:grid;\
        place-items:center;text-align:center;width:76px;height:76px;border-radius:50%;\
        margin:.4rem auto;padding:.3rem;font-size:.72rem;line-height:1.1}
        html[data-family=accessoryRectangular] .view[data-family~=accessoryRectangular]:not(.view-unavailable){max-width:172px;\
        min-height:76px;border-radius:12px;padding:.35rem .55rem}
        html[data-family=accessoryInline] .view[data-family~=accessoryInline]:not(.view-unavailable){max-width:260px;\
        white-space:nowrap;text-overflow:ellipsis;border-radius:999px;padding:.2rem .7rem}
        html[data-family=accessoryInline] .view[data-family~=accessoryInline] *{display:inline;margin:0}
        .entry{position:relative}.entry-link{position:absolute;inset:0;border-radius:10px}
        .entry-link .link-icon{position:absolute;top:0;right:0;width:14px;height:14px;color:var(--muted)}
        .entry .view a,.entry .view summary{position:relative;z-index:1}
        \(familyRules("html[data-family=F] .entry:has(>.view-unavailable[data-family~=F])>.entry-link")){display:none}
        .view details>summary{cursor:pointer;color:var(--accent)}
        .view h3{margin:.2rem 0 .35rem;font-size:1.02rem;line-height:1.3}
        .view p{margin:.25rem 0}
        .view img{max-width:100%;height:auto;border-radius:10px;display:block}
        .view img[data-state=broken]{display:none}
        .view .hero{width:100%;max-height:260px;object-fit:cover;margin:.2rem 0 .5rem}
        .muted{color:var(--muted)}.big{font-size:1.6rem;font-weight:650;line-height:1.2;margin:.2rem 0}
        .huge{font-size:2.3rem;font-weight:700;line-height:1.1;margin:.1rem 0}
        .num{font-variant-numeric:tabular-nums}.pos{color:var(--pos)}.neg{color:var(--neg)}.warn{color:var(--cached)}
        .center{text-align:center}.right{text-align:right}.small{font-size:.8rem}.caps{text-transform:uppercase;letter-spacing:.05em;font-size:.72rem}
        .fields{margin:.3rem 0;display:grid;gap:.15rem}.fields>div{display:grid;grid-template-columns:minmax(5rem,35%) 1fr;gap:.5rem}
        .fields dt{color:var(--muted);font-size:.85rem;overflow-wrap:anywhere}.fields dd{margin:0;overflow-wrap:anywhere;min-width:0}
        .items{list-style:none;margin:.2rem 0;padding:0}.items>li{display:flex;gap:.6rem;align-items:center;padding:.4rem 0;\
        border-top:1px solid var(--line)}.items>li:first-child{border-top:0}
        .thumb{width:56px;height:56px;object-fit:cover;border-radius:8px;flex:none}
        .row-text{display:flex;flex-direction:column;min-width:0;flex:1}.row-title{font-weight:600;overflow-wrap:anywhere}
        .stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(6.2rem,1fr));gap:.5rem;margin:.4rem 0}
        .stat{background:var(--bg);border-radius:10px;padding:.45rem .55rem}.stat b{display:block;font-size:1.05rem;font-variant-numeric:tabular-nums;white-space:nowrap}
        .stat span{color:var(--muted);font-size:.75rem}
        table.data{width:100%;border-collapse:collapse;font-size:.88rem;font-variant-numeric:tabular-nums;margin:.3rem 0}
        table.data th{text-align:left;color:var(--muted);font-weight:600;font-size:.75rem;border-bottom:1px solid var(--line);padding:.25rem .3rem}
        table.data td{border-bottom:1px solid var(--line);padding:.3rem;overflow-wrap:anywhere}table.data td+td{overflow-wrap:normal}table.data tr:last-child td{border-bottom:0}
        table.data .right,table.data td.num{text-align:right;white-space:nowrap}
        .full-bleed{position:relative;margin:0 -.9rem -.6rem;aspect-ratio:4/3;background:#000;overflow:hidden}
        .full-bleed img{position:absolute;inset:0;width:100%;height:100%;max-height:none;object-fit:cover;border-radius:0;display:block}
        html[data-family=small] .full-bleed,html[data-family=large] .full-bleed{aspect-ratio:1}html[data-family=extraLarge] .full-bleed{aspect-ratio:2/1}
        .full-bleed .caption{position:absolute;left:0;right:0;bottom:0;padding:2.2rem .9rem .7rem;color:#fff;\
        background:linear-gradient(transparent,rgba(0,0,0,.78))}
        .full-bleed .caption a,.full-bleed .caption h3{color:#fff}.full-bleed .caption p{color:rgba(255,255,255,.85)}
        .tag{display:inline-block;font-size:.72rem;border-radius:999px;padding:0 .45rem;background:var(--bg);color:var(--muted)}
        .quote{font-size:1.12rem;font-style:italic;margin:.3rem 0}.punchline{font-weight:650;font-size:1.05rem}
        .view-error{color:var(--neg);font-size:.85rem;overflow-wrap:anywhere}
        .sparkline{display:block;max-width:100%;height:auto;margin:.3rem 0;color:var(--accent);overflow:visible}
        .sparkline circle{stroke:var(--card);stroke-width:1}.sparkline .spark-first{fill:var(--muted)}\
        .sparkline .spark-min{fill:var(--neg)}.sparkline .spark-max{fill:var(--pos)}.sparkline .spark-last{fill:var(--accent)}
        """

    /// `pattern` once per family, `F` replaced by its name, joined by commas: one selector list for all.
    static func familyRules(_ pattern: String) -> String {
        ViewDefinition.Family.allCases.map { pattern.replacingOccurrences(of: "F", with: $0.rawValue) }.joined(separator: ",")
    }
}
