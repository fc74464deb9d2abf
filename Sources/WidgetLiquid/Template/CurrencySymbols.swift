/// How the `currency` filter writes a currency: the symbol before the amount and its usual decimals, as
/// Foundation's `NumberFormatter` (`.currency`, locale `en_US`) writes them.
///
/// A code not listed here is written as the code and a no-break space (`CHF 1,234.50`) with two decimals.
enum CurrencySymbols {
    struct Currency {
        /// What precedes the amount, space included where there is one.
        var prefix: String
        /// The number of decimals the currency is written with.
        var decimals: Int
    }

    static let noBreakSpace = "\u{A0}"

    /// The currencies written with a symbol or other than two decimals in `en_US`.
    static let table: [String: Currency] = {
        var table: [String: Currency] = [
            "USD": Currency(prefix: "$", decimals: 2),
            "EUR": Currency(prefix: "€", decimals: 2),
            "GBP": Currency(prefix: "£", decimals: 2),
            "JPY": Currency(prefix: "¥", decimals: 0),
            "AUD": Currency(prefix: "A$", decimals: 2),
            "BRL": Currency(prefix: "R$", decimals: 2),
            "CAD": Currency(prefix: "CA$", decimals: 2),
            "CNY": Currency(prefix: "CN¥", decimals: 2),
            "HKD": Currency(prefix: "HK$", decimals: 2),
            "ILS": Currency(prefix: "₪", decimals: 2),
            "INR": Currency(prefix: "₹", decimals: 2),
            "KRW": Currency(prefix: "₩", decimals: 0),
            "MXN": Currency(prefix: "MX$", decimals: 2),
            "NZD": Currency(prefix: "NZ$", decimals: 2),
            "PHP": Currency(prefix: "₱", decimals: 2),
            "TWD": Currency(prefix: "NT$", decimals: 2),
            "VND": Currency(prefix: "₫", decimals: 0),
            "XCD": Currency(prefix: "EC$", decimals: 2),
            "XAF": Currency(prefix: "FCFA" + noBreakSpace, decimals: 0),
            "XOF": Currency(prefix: "F\u{202F}CFA" + noBreakSpace, decimals: 0),
            "XPF": Currency(prefix: "CFPF" + noBreakSpace, decimals: 0),
            "XCG": Currency(prefix: "Cg." + noBreakSpace, decimals: 2),
        ]
        let whole = [
            "AFN", "ALL", "BIF", "CLP", "COP", "DJF", "GNF", "IDR", "IQD", "IRR", "ISK", "KMF", "KPW", "LAK", "LBP",
            "MGA", "MMK", "PKR", "PYG", "RSD", "RWF", "SLL", "SOS", "SYP", "UGX", "VUV", "YER",
        ]
        for code in whole { table[code] = Currency(prefix: code + noBreakSpace, decimals: 0) }
        for code in ["BHD", "JOD", "KWD", "LYD", "OMR", "TND"] { table[code] = Currency(prefix: code + noBreakSpace, decimals: 3) }
        return table
    }()

    /// The currency for an upper-case three-letter code.
    static func currency(_ code: String) -> Currency {
        table[code] ?? Currency(prefix: code + noBreakSpace, decimals: 2)
    }
}
