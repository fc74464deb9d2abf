public import Foundation

extension TimeZone {
    /// The zone's short name at `date` (`EST`, `EDT`, `CET`), or `nil` when only a `GMT±N` form is known.
    ///
    /// Linux's Foundation abbreviates most zones as `GMT-5`; the short localized name is asked for there.
    public func shortName(at date: Date) -> String? {
        if let abbreviation = abbreviation(for: date), !abbreviation.hasPrefix("GMT") { return abbreviation }
        let style: NSTimeZone.NameStyle = isDaylightSavingTime(for: date) ? .shortDaylightSaving : .shortStandard
        if let name = localizedName(for: style, locale: Locale(identifier: "en_US")), !name.hasPrefix("GMT") {
            return name
        }
        return nil
    }
}
