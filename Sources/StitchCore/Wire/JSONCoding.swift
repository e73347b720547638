// The wire format's instants and JSON coders are WireCoding's, shared with Selene: one
// implementation of RFC 3339 at millisecond precision for both products.
@_exported import WireCoding

/// Stitchuation's JSON coders: WireCoding's (camelCase keys, sorted; dates as `Timestamp` (WireCoding) writes them).
public typealias StitchJSON = WireJSON
