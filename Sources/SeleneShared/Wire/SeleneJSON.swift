import Foundation
// The wire format's instants and JSON coders are WireCoding's, shared with Stitchuation.
@_exported import WireCoding

/// Selene's wire format (SELENE.md §10): WireCoding's coders — camelCase keys, ISO-8601 UTC dates
/// with milliseconds (`2026-01-31T12:00:00.000Z`), accepted with or without fractions and with any offset.
public typealias SeleneJSON = WireJSON

/// ISO-8601 instants as Selene writes and reads them: `Timestamp`'s (WireCoding), under the names Selene's code uses.
public enum WireDate {
    /// `2026-01-31T12:00:00.000Z`: the instant rounded to the millisecond.
    public static func string(from date: Date) -> String { Timestamp.string(from: date) }

    /// A date-time with `Z` or an offset (`+02:00`), with or without fractional seconds; nil
    /// for anything else, an impossible day (February 30th) or a leap second included.
    public static func date(from text: String) -> Date? { Timestamp.date(from: text) }

    /// `2026-01-31` (UTC), the day part of an instant.
    public static func day(of date: Date) -> String { String(string(from: date).prefix(10)) }

    /// The same instant at whole milliseconds, the precision every store and the wire keep.
    public static func rounded(_ date: Date) -> Date { date.roundedToMilliseconds }
}
