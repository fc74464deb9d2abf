/// Deterministic, realistic JSON documents for the JSON benchmarks.
///
/// Records look like a shop's catalogue: integer ids, titles with escapes and non-ASCII letters, prices
/// with two decimals, a nested array of tags, booleans, nulls and a nested seller object. The same seed
/// always gives the same bytes, so figures from different runs compare.
enum JSONBenchmarkDocuments {
    /// A top-level array of `count` records (5,000 records make about 1 MB).
    static func catalogue(records count: Int) -> [UInt8] {
        var generator = Generator(seed: 0x5EED)
        var output: [UInt8] = []
        output.reserveCapacity(count * 220)
        output.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendRecord(index, into: &output, generator: &generator)
        }
        output.append(UInt8(ascii: "]"))
        return output
    }

    /// An API response of about `bytes` bytes: a paging envelope around a list of records.
    static func response(bytes: Int) -> [UInt8] {
        var generator = Generator(seed: 0xCAFE)
        var items: [UInt8] = []
        var count = 0
        while items.count < bytes - 160 {
            if count > 0 { items.append(UInt8(ascii: ",")) }
            appendRecord(count, into: &items, generator: &generator)
            count += 1
        }
        var output = Array(
            #"{"status":"ok","request_id":"9f1c2e7a-4b3d-4c55-9a1e-0d2f6b7c8e90","page":{"number":1,"size":"#.utf8)
        output += Array("\(count),\"total\":\(count * 37),\"has_more\":true,\"next\":null},\"items\":[".utf8)
        output += items
        output += Array(#"],"generated_at":"2026-03-14T09:26:53Z"}"#.utf8)
        return output
    }

    // MARK: - Records

    private static let words = [
        "Sunflowers", "Harbour", "Night", "Café", "Blue", "Study", "Garden", "Étude", "Mountain", "Portrait",
        "Tokyo 東京", "Winter", "Über", "Lights", "Señora", "Still Life", "Kraków", "River", "Fjord", "Crème",
    ]
    private static let tags = ["art", "oil", "print", "framed", "sale", "new", "vintage", "signed", "large", "gift"]
    private static let currencies = ["EUR", "USD", "GBP", "JPY", "CHF"]

    private static func appendRecord(_ index: Int, into output: inout [UInt8], generator: inout Generator) {
        let id = 100_000 + index * 7 + generator.next(below: 7)
        var title = words[generator.next(below: words.count)] + " " + words[generator.next(below: words.count)]
        switch generator.next(below: 6) {
        case 0: title += #" \"limited\""#
        case 1: title += #" \/ edition"#
        case 2: title += #" \u00e9dition\n"#
        default: break
        }
        let cents = 100 + generator.next(below: 99_900)
        let price = "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
        var tagList: [String] = []
        for _ in 0..<(1 + generator.next(below: 3)) { tagList.append("\"\(tags[generator.next(below: tags.count)])\"") }
        let stock = generator.next(below: 3) == 0 ? "null" : "\(generator.next(below: 500))"
        let rating = "\(1 + generator.next(below: 4)).\(generator.next(below: 10))"
        var text = "{\"id\":\(id),\"sku\":\"SKU-\(id)\",\"title\":\"\(title)\",\"price\":\(price),"
        text += "\"currency\":\"\(currencies[generator.next(below: currencies.count)])\","
        text += "\"in_stock\":\(generator.next(below: 4) != 0),\"stock\":\(stock),\"rating\":\(rating),"
        text += "\"tags\":[\(tagList.joined(separator: ","))],"
        text += "\"seller\":{\"id\":\(generator.next(below: 900)),\"verified\":\(generator.next(below: 2) == 0)},"
        text += "\"discount\":null}"
        output += Array(text.utf8)
    }

    /// A small linear congruential generator; deterministic across platforms.
    private struct Generator {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next(below bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }
}
