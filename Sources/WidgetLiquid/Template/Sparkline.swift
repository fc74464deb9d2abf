import WidgetJSON

/// The `sparkline` filter: a list of numbers drawn as a small inline SVG line with its first, last,
/// lowest and highest points marked.
///
/// The input is a list whose items are numbers, numeric text, or objects with a numeric `value` member
/// (the points a widget's `history.NAME` holds: `{"at": "…", "value": 123.45}`); other items are skipped.
/// Points are spaced evenly, oldest (first) on the left. Each point's height is its exact distance from
/// the lowest value divided by the range, computed on the decimals, then written in pixels with two
/// decimals.
///
/// The SVG holds numbers and class names only, and one `<title>` ("min 3, max 9, last 7") whose text is
/// escaped, so the filter's output is shown as it is in views (like `safe`); its colours come from the
/// page (`stroke="currentColor"` and the classes `sparkline`, `spark-line`, `spark-first`, `spark-last`,
/// `spark-min`, `spark-max`), never from the SVG.
///
/// Keywords: `width:` (default 120, from 16 to 1000) and `height:` (default 32, from 8 to 400) in pixels,
/// and `label:`, text put before the summary in the title. An empty list draws an empty box titled
/// "No data"; one point is a dot in the middle, all four marks at once; equal values are a flat line in
/// the middle. Past two points for each pixel of the width, the line keeps each column's lowest and
/// highest point (the marks stay exact), so the SVG stays small however long the list.
///
/// ```liquid
/// {{ history.total | sparkline: width: 200, height: 40, label: 'Value' }}
/// ```
enum Sparkline {
    static let entry = StandardFilters.Entry(
        "sparkline", 0...0,
        { input, _, context throws(ExpressionError) in
            try FormattingFilters.checkKeywords(context, allowed: ["width", "height", "label"])
            let width = try size("width", context: context, default: 120, range: 16...1000)
            let height = try size("height", context: context, default: 32, range: 8...400)
            let label = context.keywordArguments["label"].flatMap(LiquidValue.optionalString) ?? ""
            return .string(svg(values(input), width: width, height: height, label: label))
        })

    // MARK: - Reading the input

    /// The numbers of `input`, in order: numbers, numeric text, and the `value` of objects.
    static func values(_ input: WidgetValue) -> [WidgetNumber] {
        LiquidValue.list(input).compactMap { item in
            switch item {
            case .object(let object): number(object["value"] ?? .null)
            default: number(item)
            }
        }
    }

    static func number(_ value: WidgetValue) -> WidgetNumber? {
        switch value {
        case .number(let number): number
        case .string(let text): WidgetNumber(text.trimmingFoundationWhitespaceAndNewlines())
        default: nil
        }
    }

    /// A whole number of pixels from a keyword, within `range`.
    static func size(_ name: String, context: FilterContext, default defaultValue: Int, range: ClosedRange<Int>)
        throws(ExpressionError) -> Int
    {
        guard let value = context.keywordArguments[name], !value.isNull else { return defaultValue }
        if case .number(let number) = value, let pixels = number.int, range.contains(pixels) { return pixels }
        throw context.error(
            "`\(name):` must be a whole number of pixels from \(range.lowerBound) to \(range.upperBound)",
            hint: "write e.g. `sparkline: \(name): \(defaultValue)`")
    }

    // MARK: - Drawing

    /// The radius of the marks, and the margin left around the line so that they are not cut.
    static let markRadius = 2.5
    static let margin = 3.5

    /// The SVG for `values` in a box of `width` × `height` pixels.
    static func svg(_ values: [WidgetNumber], width: Int, height: Int, label: String) -> String {
        let open =
            "<svg class=\"sparkline\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\">"
        let prefix = label.isEmpty ? "" : label + ": "
        guard let first = values.first, let last = values.last else {
            return open + "<title>\(HTMLText.escape(prefix + "No data"))</title></svg>"
        }
        var lowest = 0
        var highest = 0
        for index in values.indices.dropFirst() {
            if values[index] < values[lowest] { lowest = index }
            if values[highest] < values[index] { highest = index }
        }
        let count = values.count == 1 ? "1 point" : "\(values.count) points"
        let summary =
            "min \(values[lowest].text), max \(values[highest].text), first \(first.text), last \(last.text) (\(count))"
        var svg = open + "<title>\(HTMLText.escape(prefix + summary))</title>"

        let box = Box(width: Double(width), height: Double(height), count: values.count)
        let range = values[highest] - values[lowest]
        func point(_ index: Int) -> (x: String, y: String) {
            let ratio = range == WidgetNumber(0) ? 0.5 : ((values[index] - values[lowest]) / range)?.double ?? 0.5
            return (pixels(box.x(index)), pixels(box.y(ratio)))
        }
        if values.count > 1 {
            let drawn = drawnIndices(values, columns: width)
            let points = drawn.map { index in
                let (x, y) = point(index)
                return "\(x),\(y)"
            }
            svg +=
                "<polyline class=\"spark-line\" points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"currentColor\""
                + " stroke-width=\"1.5\" stroke-linejoin=\"round\" stroke-linecap=\"round\" />"
        }
        // One mark for each point that is first, last, lowest or highest, with all its roles as classes;
        // the last is drawn last, on top.
        var marks: [(index: Int, classes: [String])] = []
        for (index, role) in [(lowest, "spark-min"), (highest, "spark-max"), (0, "spark-first"), (values.count - 1, "spark-last")] {
            if let found = marks.firstIndex(where: { $0.index == index }) {
                marks[found].classes.append(role)
            } else {
                marks.append((index, [role]))
            }
        }
        if let lastMark = marks.firstIndex(where: { $0.index == values.count - 1 }) { marks.append(marks.remove(at: lastMark)) }
        for mark in marks {
            let (x, y) = point(mark.index)
            svg +=
                "<circle class=\"\(mark.classes.joined(separator: " "))\" cx=\"\(x)\" cy=\"\(y)\" r=\"\(pixels(markRadius))\""
                + " fill=\"currentColor\" />"
        }
        return svg + "</svg>"
    }

    /// Where points go in the box: evenly spaced across, the highest value at the top.
    struct Box {
        var width: Double
        var height: Double
        var count: Int

        /// The horizontal position of point `index`; a single point is in the middle.
        func x(_ index: Int) -> Double {
            guard count > 1 else { return width / 2 }
            return margin + (width - 2 * margin) * Double(index) / Double(count - 1)
        }

        /// The vertical position of a value `ratio` of the way from the lowest (0) to the highest (1).
        func y(_ ratio: Double) -> Double {
            margin + (height - 2 * margin) * (1 - min(1, max(0, ratio)))
        }
    }

    /// The indices the line passes through: all of them up to two for each column of pixels; past that,
    /// the first and last, and each column's lowest and highest in their order.
    static func drawnIndices(_ values: [WidgetNumber], columns: Int) -> [Int] {
        guard values.count > 2 * columns else { return Array(values.indices) }
        var drawn = [0]
        var start = 0
        for column in 0..<columns {
            let end = (column + 1) * values.count / columns
            guard start < end else { continue }
            var lowest = start
            var highest = start
            for index in start..<end {
                if values[index] < values[lowest] { lowest = index }
                if values[highest] < values[index] { highest = index }
            }
            for index in Set([lowest, highest]).sorted() where index != drawn.last { drawn.append(index) }
            start = end
        }
        if drawn.last != values.count - 1 { drawn.append(values.count - 1) }
        return drawn
    }

    /// A coordinate with at most two decimals and no trailing zeros: `12`, `3.5`, `0.25`.
    static func pixels(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let whole = String(hundredths / 100)
        let fraction = hundredths % 100
        guard fraction != 0 else { return whole }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
