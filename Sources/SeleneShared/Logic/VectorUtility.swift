import Foundation

/// Vector arithmetic for embeddings: dot products, cosine similarity, normalisation, means.
public enum VectorUtility {
    /// Σ aᵢbᵢ over `count` floats, sixteen at a time.
    @inlinable
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var acc0 = SIMD16<Float>(), acc1 = SIMD16<Float>()
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        while i + 32 <= count {
            acc0 += ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self) * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self)
            acc1 += ra.loadUnaligned(fromByteOffset: (i + 16) * 4, as: SIMD16<Float>.self) * rb.loadUnaligned(fromByteOffset: (i + 16) * 4, as: SIMD16<Float>.self)
            i += 32
        }
        while i + 16 <= count {
            acc0 += ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self) * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self)
            i += 16
        }
        var sum = (acc0 + acc1).sum()
        while i < count { sum += a[i] * b[i]; i += 1 }
        return sum
    }

    public static func dot(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count, "vectors of different dimensions")
        return a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in dot(pa.baseAddress!, pb.baseAddress!, count: a.count) } }
    }

    public static func norm(_ v: [Float]) -> Float { dot(v, v).squareRoot() }

    /// Cosine similarity in −1…1; 0 when either vector is zero or the dimensions differ.
    public static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        let na = norm(a), nb = norm(b)
        guard na > 0, nb > 0 else { return 0 }
        return Double(dot(a, b) / (na * nb))
    }

    /// The vector scaled to length 1 (a zero vector stays zero).
    public static func normalized(_ v: [Float]) -> [Float] {
        let n = norm(v)
        guard n > 0, n.isFinite else { return v }
        return v.map { $0 / n }
    }

    /// The normalised mean of vectors of one dimension (nil when there are none).
    public static func centroid(_ vectors: [[Float]]) -> [Float]? {
        guard let first = vectors.first else { return nil }
        var sum = [Float](repeating: 0, count: first.count)
        for v in vectors where v.count == first.count { for i in 0..<v.count { sum[i] += v[i] } }
        return normalized(sum)
    }

    /// Adds one vector to a centroid of `count` vectors (both normalised), answering the new centroid.
    public static func adding(_ v: [Float], to centroid: [Float], count: Int) -> [Float] {
        guard centroid.count == v.count, count > 0 else { return normalized(v) }
        let c = normalized(centroid), x = normalized(v)
        return normalized((0..<c.count).map { c[$0] * Float(count) + x[$0] })
    }

    /// The `k` highest-scoring items (score, value), best first.
    public static func topK<T>(_ items: [(Double, T)], _ k: Int) -> [(Double, T)] {
        Array(items.sorted { $0.0 > $1.0 }.prefix(k))
    }
}
