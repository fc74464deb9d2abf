import Foundation
import WidgetCore
import WidgetLiquid

/// The last check on a view's HTML before it enters the gallery: links and images only to `http(s)` or
/// to relative paths inside the output folder, no event handlers, no active elements.
///
/// A view's `{{ }}` outputs are HTML-escaped, so data cannot add markup; but a value the author places in
/// an attribute (`<a href="{{ entry.url }}">`) can still be a `javascript:` URL, and markup an author marks
/// `safe` (a feed's HTML content) can hold anything. This pass reads every tag of the fragment:
///
/// - `href`, `src`, `srcset`, `poster`, `action`, `formaction`, `cite`, `background`, `data` and `xlink:href` keep
///   their value only when it is an `http:` or `https:` URL, a fragment (`#top`), or a relative path with
///   no `..` segment and no scheme (`assets/3f2a….png`); otherwise the attribute is dropped. A link's
///   `href` may also open an app (`bitpal://portfolio`, ``isSafeLink(_:)``), never `javascript:`;
/// - `<details>` and `<summary>` are kept: a view may hide text until it is asked for;
/// - `on…` attributes (`onerror`, `onclick`) and `style` attributes (the policy would refuse them anyway:
///   style a view with the gallery's classes) are dropped;
/// - `<script>`, `<style>`, `<iframe>`, `<object>`, `<embed>`, `<base>`, `<meta>`, `<link>`, `<form>`,
///   `<frame>`, `<frameset>`, `<template>`, `<math>` and `<noscript>` tags, and those whose
///   content is raw text (`<textarea>`, `<title>`, `<xmp>`, `<plaintext>`, …), are written as text, as is
///   a comment left open: nothing a view writes can hide the rest of the page;
/// - `<svg>` keeps a strict subset, what the `sparkline` filter draws: the elements `svg`, `g`, `polyline`,
///   `path`, `circle`, `line` and `title` (only inside an `<svg>`, when closed) with a list of attributes, none of
///   whose values may hold `url(` or a CSS escape. Any other element inside it (`<foreignObject>`, `<a>`,
///   `<use>`, `<image>`, `<animate>`, an HTML tag that would end the drawing) is dropped with its end tag,
///   its text kept; `<script>` and `<style>` are written as text; an `<svg>` left open is closed;
/// - comments are dropped, since browsers may end one before its `-->`.
///
/// The page's Content-Security-Policy forbids inline scripts and styles besides the gallery's own, so
/// this is the second of two walls.
///
/// ```swift
/// ViewMarkup.sanitize(#"<a href="javascript:alert(1)" onclick="x()">go</a>"#)   // "<a>go</a>"
/// ```
public enum ViewMarkup {
    /// The attributes whose values are URLs.
    static let urlAttributes: Set<String> = [
        "href", "src", "srcset", "poster", "action", "formaction", "cite", "background", "xlink:href", "data",
    ]

    /// The elements shown as text rather than obeyed.
    static let blockedElements: Set<String> = [
        "script", "style", "iframe", "object", "embed", "base", "meta", "link", "form", "frame", "frameset",
        "template", "math", "noscript", "applet", "portal",
        // Elements whose content is raw text: one left open would swallow the rest of the page.
        "textarea", "title", "xmp", "plaintext", "noembed", "noframes", "listing",
    ]

    /// The elements kept inside an `<svg>`: those the `sparkline` filter draws with, and `g`, `path` and `line`.
    static let svgElements: Set<String> = ["svg", "g", "polyline", "path", "circle", "line", "title"]

    /// The attributes kept on ``svgElements``, in lower case (written back as SVG spells them: `viewBox`).
    static let svgAttributes: Set<String> = [
        "viewbox", "width", "height", "class", "role", "aria-label", "aria-hidden", "focusable", "xmlns",
        "preserveaspectratio", "points", "d", "cx", "cy", "r", "x1", "y1", "x2", "y2", "fill", "stroke",
        "stroke-width", "stroke-linecap", "stroke-linejoin", "vector-effect",
    ]

    /// `html` with unsafe URLs, event handlers and active elements removed (see the type's description).
    public static func sanitize(_ html: String) -> String {
        let bytes = Array(html.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        // How many `<svg>` elements are open where `index` is.
        var svgDepth = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "<") else {
                output.append(byte)
                index += 1
                continue
            }
            if starts(bytes, at: index, with: "<!--") {
                // Comments are dropped: a browser ends one earlier than `-->` (at `<!-->`, `<!--->` or
                // `--!>`), so markup that looked commented out could act. One left open is shown as text.
                if let end = find(bytes, "-->", from: index + 4) {
                    index = end + 3
                } else {
                    output += Array("&lt;".utf8)
                    index += 1
                }
                continue
            }
            let closing = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")
            let nameStart = index + (closing ? 2 : 1)
            guard nameStart < bytes.count, isLetter(bytes[nameStart]) else {
                output += Array("&lt;".utf8)
                index += 1
                continue
            }
            var nameEnd = nameStart
            while nameEnd < bytes.count, !isSpace(bytes[nameEnd]), bytes[nameEnd] != UInt8(ascii: ">"),
                bytes[nameEnd] != UInt8(ascii: "/")
            {
                nameEnd += 1
            }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self).lowercased()
            if svgDepth > 0 || name == "svg" {
                // Inside a drawing (or opening one), only its subset; its own rules follow.
                if svgElements.contains(name), name != "title" || closing || titleEnd(bytes, from: nameEnd) != nil {
                    if closing {
                        index = endTagEnd(bytes, from: nameEnd)
                        // A stray `</svg>` outside a drawing is dropped, as the browser ignores it.
                        guard name != "svg" || svgDepth > 0 else { continue }
                        if name == "svg" { svgDepth -= 1 }
                        output += Array("</\(name)>".utf8)
                        continue
                    }
                    let tag = writeStartTag(name, bytes, from: nameEnd, into: &output, keeping: keepSVG)
                    if name == "svg", !tag.selfClosing { svgDepth += 1 }
                    index = tag.end
                    if name == "title", !tag.selfClosing, let end = titleEnd(bytes, from: index) {
                        // A title is text only: inside one the parser would read tags as HTML again.
                        for byte in bytes[index..<end] {
                            if byte == UInt8(ascii: "<") { output += Array("&lt;".utf8) } else { output.append(byte) }
                        }
                        index = end
                    }
                    continue
                }
                if !blockedElements.contains(name) {
                    // Dropped with its attributes; its text stays (and draws nothing).
                    index = closing ? endTagEnd(bytes, from: nameEnd) : readAttributes(bytes, from: nameEnd).end
                    continue
                }
            }
            if blockedElements.contains(name) {
                // The tag becomes text: the browser shows "<script>" instead of running it.
                output += Array("&lt;".utf8)
                index += 1
                continue
            }
            if closing {
                output += Array("</\(name)>".utf8)
                index = endTagEnd(bytes, from: nameEnd)
                continue
            }
            index = writeStartTag(name, bytes, from: nameEnd, into: &output, keeping: keep).end
        }
        for _ in 0..<svgDepth { output += Array("</svg>".utf8) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether `value` (as written in an attribute, entities and all) may be a link's or an image's
    /// address: an `http(s)` URL, a fragment, or a relative path without `..` and without a scheme.
    public static func isSafeURL(_ value: String) -> Bool {
        // Browsers ignore tabs and newlines anywhere in a URL, and spaces and controls around it.
        let decoded = HTMLText.decodeEntities(value)
        let cleaned = String(String.UnicodeScalarView(decoded.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
        if cleaned.isEmpty { return false }
        let lowered = cleaned.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return true }
        if lowered.hasPrefix("#") { return true }
        if lowered.hasPrefix("//") || lowered.hasPrefix("/\\") || lowered.hasPrefix("\\") { return false }
        // A scheme is letters before the first ':' that comes before any '/', '?' or '#'.
        if let colon = lowered.firstIndex(of: ":") {
            let before = lowered[..<colon]
            if !before.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { return false }
        }
        let path = lowered.prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: { $0 == ".." || $0 == "%2e%2e" || $0 == ".%2e" || $0 == "%2e." }) { return false }
        return !path.contains("\\")
    }

    /// The schemes a link never opens, though written as an app's (`javascript://%0A…` runs script):
    /// the browser's own and those of system handlers known to be abused.
    static let blockedSchemes: Set<String> = [
        "javascript", "vbscript", "livescript", "data", "file", "blob", "filesystem", "about", "view-source", "jar", "mhtml",
        "wyciwyg", "chrome", "chrome-extension", "moz-extension", "resource", "intent", "search-ms", "search", "shell",
    ]

    /// Whether `value` (as written in an attribute, entities and all) may be a link's address: what
    /// ``isSafeURL(_:)`` allows, or an app's URL, `scheme://…`, such as `bitpal://portfolio` or
    /// `mrfunnyjokes://jotd` (the link a widget opens in its app). Never `javascript:`, `data:`, `file:`,
    /// nor a scheme of the browser's own or of a system handler (`ms-…`, `search-ms`).
    public static func isSafeLink(_ value: String) -> Bool {
        if isSafeURL(value) { return true }
        let decoded = HTMLText.decodeEntities(value)
        let cleaned = String(String.UnicodeScalarView(decoded.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F })).lowercased()
        guard let separator = cleaned.range(of: "://") else { return false }
        let scheme = cleaned[..<separator.lowerBound]
        guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first),
            scheme.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+.-".unicodeScalars.contains($0) })
        else { return false }
        return !blockedSchemes.contains(String(scheme)) && !scheme.hasPrefix("ms-")
    }

    // MARK: - Tags

    /// Writes the start tag `name`, whose attributes begin at `start`, with those `keeping` keeps; returns
    /// whether it closed itself and where it ends.
    static func writeStartTag(
        _ name: String, _ bytes: [UInt8], from start: Int, into output: inout [UInt8], keeping: (Attribute) -> String?
    ) -> (selfClosing: Bool, end: Int) {
        let tag = readAttributes(bytes, from: start)
        output += Array("<\(name)".utf8)
        for attribute in tag.attributes {
            guard let kept = keeping(attribute) else { continue }
            output += Array(" \(kept)".utf8)
        }
        output += Array((tag.selfClosing ? " />" : ">").utf8)
        return (tag.selfClosing, tag.end)
    }

    /// Where an end tag whose name ends at `start` ends: just after its `>`.
    static func endTagEnd(_ bytes: [UInt8], from start: Int) -> Int {
        min(bytes.count, (find(bytes, ">", from: start) ?? bytes.count) + 1)
    }

    // MARK: - Attributes

    /// One attribute as written: its name, and its value with entities still in it (`nil` for a bare name).
    struct Attribute {
        var name: String
        var value: String?
    }

    /// The attribute written back, or `nil` when it goes.
    static func keep(_ attribute: Attribute) -> String? {
        let name = attribute.name.lowercased()
        if name.hasPrefix("on") || name == "style" { return nil }
        guard let value = attribute.value else { return name }
        if urlAttributes.contains(name) {
            if name == "srcset" {
                let candidates = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let urls = candidates.map { String($0.split(separator: " ").first ?? "") }
                guard !urls.isEmpty, urls.allSatisfy(isSafeURL) else { return nil }
            } else if name == "href" ? !isSafeLink(value) : !isSafeURL(value) {
                return nil
            }
        }
        // (Foundation's replacingOccurrences, through NSString, was a tenth of rendering a card.)
        guard value.utf8.contains(UInt8(ascii: "\"")) else { return "\(name)=\"\(value)\"" }
        var quoted = ""
        quoted.reserveCapacity(value.utf8.count + 10)
        for character in value.unicodeScalars {
            if character == "\"" { quoted += "&quot;" } else { quoted.unicodeScalars.append(character) }
        }
        return "\(name)=\"\(quoted)\""
    }

    /// The attribute of an element inside an `<svg>` written back, or `nil` when it goes: one of
    /// ``svgAttributes`` whose value, entities decoded, holds no `url(` (a paint or a filter fetched from
    /// elsewhere) and no backslash (a CSS escape could spell one).
    static func keepSVG(_ attribute: Attribute) -> String? {
        guard svgAttributes.contains(attribute.name.lowercased()) else { return nil }
        if let value = attribute.value {
            let decoded = HTMLText.decodeEntities(value).lowercased()
            let squeezed = String(String.UnicodeScalarView(decoded.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
            if squeezed.contains("url(") || squeezed.contains("\\") { return nil }
        }
        let name = attribute.name.lowercased()
        guard let kept = keep(attribute) else { return nil }
        return svgAttributeCases[name].map { $0 + kept.dropFirst(name.utf8.count) } ?? kept
    }

    /// The SVG attributes whose names are not all lower case, as SVG spells them.
    static let svgAttributeCases = ["viewbox": "viewBox", "preserveaspectratio": "preserveAspectRatio"]

    /// Where the first `</title` (in any case) from `start` begins: a `<title>` is kept only when it is closed.
    static func titleEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while let open = find(bytes, "</", from: index) {
            if open + 7 <= bytes.count, String(decoding: bytes[open + 2..<open + 7], as: UTF8.self).lowercased() == "title" {
                return open
            }
            index = open + 2
        }
        return nil
    }

    /// Reads attributes from `start` (just after the tag's name) to the tag's `>`.
    static func readAttributes(_ bytes: [UInt8], from start: Int) -> (attributes: [Attribute], selfClosing: Bool, end: Int) {
        var attributes: [Attribute] = []
        var index = start
        var selfClosing = false
        while index < bytes.count {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: ">") { return (attributes, selfClosing, index + 1) }
            if bytes[index] == UInt8(ascii: "/") {
                selfClosing = true
                index += 1
                continue
            }
            selfClosing = false
            let nameStart = index
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"),
                bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: "/") || index == nameStart
            {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                if isAttributeName(name) { attributes.append(Attribute(name: name, value: nil)) }
                continue
            }
            index += 1
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            var value = ""
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                let quote = bytes[index]
                let valueStart = index + 1
                var valueEnd = valueStart
                while valueEnd < bytes.count, bytes[valueEnd] != quote { valueEnd += 1 }
                value = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
                index = min(bytes.count, valueEnd + 1)
            } else {
                let valueStart = index
                while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
            }
            if isAttributeName(name) { attributes.append(Attribute(name: name, value: value)) }
        }
        return (attributes, selfClosing, bytes.count)
    }

    /// Whether `name` may be written back as an attribute name: letters, digits, `-`, `_`, `:` and `.`.
    static func isAttributeName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            }
    }

    // MARK: - Bytes

    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C }

    static func starts(_ bytes: [UInt8], at index: Int, with text: String) -> Bool {
        let needle = Array(text.utf8)
        return index + needle.count <= bytes.count && Array(bytes[index..<index + needle.count]) == needle
    }

    static func find(_ bytes: [UInt8], _ text: String, from start: Int) -> Int? {
        let needle = Array(text.utf8)
        guard start <= bytes.count - needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], Array(bytes[index..<index + needle.count]) == needle { return index }
            index += 1
        }
        return nil
    }
}
