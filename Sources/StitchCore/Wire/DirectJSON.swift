import Foundation

// Sync pages, pushes and record lists written straight to JSON bytes. The general path builds a
// `JSONValue` tree first (a dictionary per record, its keys sorted again on output); these types
// know their keys and their order, so they skip the tree. The bytes are exactly the general
// path's (tested), and anything without a direct writer (an error body) goes the general way.

/// A value that writes its own wire JSON.
public protocol JSONDirect {
    func writeJSON(into out: inout [UInt8]) throws
}

extension JSONObjectSink {
    /// Writes one JSON object into `out`, its fields put by `body` in key order.
    public static func object(_ out: inout [UInt8], _ body: (inout JSONObjectSink) throws -> Void) rethrows {
        var sink = JSONObjectSink(into: [])
        swap(&sink.out, &out)
        sink.out.append(UInt8(ascii: "{"))
        try body(&sink)
        sink.out.append(UInt8(ascii: "}"))
        swap(&sink.out, &out)
    }
}

extension SyncRecord {
    public func writeJSON(into out: inout [UInt8]) {
        JSONObjectSink.object(&out) { writeWire(to: &$0) }
    }
}

extension InventoryThread: JSONDirect {}
extension Canvas: JSONDirect {}
extension Project: JSONDirect {}
extension ProjectSection: JSONDirect {}
extension ProjectThread: JSONDirect {}
extension JournalEntry: JSONDirect {}
extension JournalImage: JSONDirect {}
extension Pattern: JSONDirect {}

extension Array: JSONDirect where Element: JSONDirect {
    public func writeJSON(into out: inout [UInt8]) throws {
        out.append(UInt8(ascii: "["))
        for (index, element) in enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            try element.writeJSON(into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}

extension SyncChange: JSONDirect {
    public func writeJSON(into out: inout [UInt8]) {
        Self.writeJSON(action: action, type: type, id: id, updatedAt: updatedAt, deletedAt: deletedAt, into: &out) { o in
            if let record = directRecord {
                o.put("data") { record.writeJSON(into: &$0) }
            } else if let wireData {
                o.put("data") { $0.append(contentsOf: wireData) }
            } else if let data {
                o.put("data") { JSONWriter.write(data, into: &$0) }
            }
        }
    }

    /// A change's JSON from its parts, its `data` field (if any) put by `data`: what a server
    /// writes straight from a stored row, the same bytes as the change itself would write.
    public static func writeJSON(action: SyncAction, type: EntityType, id: UUID, updatedAt: Date, deletedAt: Date?,
                                 into out: inout [UInt8], data: (inout JSONObjectSink) throws -> Void) rethrows {
        try JSONObjectSink.object(&out) { o in
            o.put("action", action)
            try data(&o)
            o.put("deletedAt", deletedAt)
            o.put("id", id)
            o.put("type", type)
            o.put("updatedAt", updatedAt)
        }
    }
}

extension SyncResult: JSONDirect {
    public func writeJSON(into out: inout [UInt8]) throws {
        try JSONObjectSink.object(&out) { o in
            o.put("clamped", clamped)
            if let error { try o.put("error") { JSONWriter.write(try JSONValueEncoder.encode(error), into: &$0) } }
            o.put("id", id)
            o.put("status", status)
            if let type { o.put("type", type) }
        }
    }
}

extension SyncResponse: JSONDirect {
    public func writeJSON(into out: inout [UInt8]) throws {
        out.append(contentsOf: Self.jsonHead)
        try changes.writeJSON(into: &out)
        try Self.writeJSONTail(cursor: cursor, hasMore: hasMore, results: results, into: &out)
    }

    /// A response's bytes up to its changes (its first key comes first). A server that sends a
    /// page's changes as it reads them writes these, then the changes, then `writeJSONTail`: the
    /// same bytes as the whole response's.
    public static let jsonHead: [UInt8] = Array(#"{"changes":"#.utf8)

    /// A response's bytes after its changes: the other keys, in order, and the object's end.
    public static func writeJSONTail(cursor: String, hasMore: Bool, results: [SyncResult], into out: inout [UInt8]) throws {
        var sink = JSONObjectSink(into: [])
        sink.first = false
        swap(&sink.out, &out)
        sink.put("cursor", cursor)
        sink.put("hasMore", hasMore)
        try sink.put("results") { try results.writeJSON(into: &$0) }
        sink.out.append(UInt8(ascii: "}"))
        swap(&sink.out, &out)
    }
}

extension SyncRequest: JSONDirect {
    public func writeJSON(into out: inout [UInt8]) throws {
        try JSONObjectSink.object(&out) { o in
            try o.put("changes") { try changes.writeJSON(into: &$0) }
            o.put("clientId", clientId)
            o.put("cursor", cursor)
            o.put("limit", limit)
        }
    }
}
