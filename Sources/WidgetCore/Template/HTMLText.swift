/// HTML escaping and tag stripping for the `escape`, `escape_once` and `strip_html` filters.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// Escapes like ``escape(_:)`` but leaves existing entities (`&amp;`, `&#39;`) alone.
    static func escapeOnce(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "&", isEntity(scalars, at: index) {
                result.append(scalar)
            } else {
                result.append(contentsOf: escape(String(scalar)).unicodeScalars)
            }
            index += 1
        }
        return String(result)
    }

    /// Whether an entity (`&name;` or `&#123;`) starts at `index`.
    private static func isEntity(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var position = index + 1
        guard position < scalars.count else { return false }
        if scalars[position] == "#" {
            position += 1
            let start = position
            while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
            return position > start && position < scalars.count && scalars[position] == ";"
        }
        let start = position
        while position < scalars.count, ("a"..."z").contains(scalars[position]) || ("A"..."Z").contains(scalars[position]) {
            position += 1
        }
        return position > start && position < scalars.count && scalars[position] == ";"
    }

    /// Removes `<script>`, `<style>` and comment blocks with their content, then every other tag.
    static func stripTags(_ text: String) -> String {
        var rest = Substring(text)
        var result = ""
        let blocks: [(open: String, close: String)] = [("<script", "</script>"), ("<!--", "-->"), ("<style", "</style>")]
        outer: while let start = rest.firstIndex(of: "<") {
            result += rest[..<start]
            let tail = rest[start...]
            for block in blocks where tail.hasPrefix(block.open) {
                if let close = tail.firstRange(of: block.close) {
                    rest = tail[close.upperBound...]
                    continue outer
                }
            }
            if let close = tail.firstIndex(of: ">") {
                rest = tail[tail.index(after: close)...]
            } else {
                result += tail
                rest = ""
            }
        }
        result += rest
        return result
    }
}
