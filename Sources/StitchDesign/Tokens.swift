import Foundation

/// The design system of SPEC §4, "a linen-bound craft journal", as values. The stylesheet is
/// generated from these, so no value is typed twice.

public struct RGB: Sendable, Hashable {
    public let r: UInt8, g: UInt8, b: UInt8

    public init(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        let value = UInt32(digits, radix: 16) ?? 0
        r = UInt8((value >> 16) & 0xFF)
        g = UInt8((value >> 8) & 0xFF)
        b = UInt8(value & 0xFF)
    }

    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    public var hex: String { String(format: "#%02X%02X%02X", r, g, b) }

    /// WCAG 2 relative luminance.
    public var luminance: Double {
        func channel(_ c: UInt8) -> Double {
            let s = Double(c) / 255
            return s <= 0.03928 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    }

    /// WCAG 2 contrast ratio, 1…21.
    public func contrast(with other: RGB) -> Double {
        let a = luminance, b = other.luminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    public static let white = RGB(r: 255, g: 255, b: 255)
}

public enum Palette {
    public static let linen = RGB(hex: "#F5F0E8")
    public static let parchment = RGB(hex: "#EDE6D8")
    public static let cream = RGB(hex: "#FAF7F2")
    public static let espresso = RGB(hex: "#3B2F2F")
    public static let walnut = RGB(hex: "#5C4A3D")
    public static let clay = RGB(hex: "#8B7355")
    public static let terracotta = RGB(hex: "#C4704B")
    public static let terracottaLight = RGB(hex: "#D4896A")
    public static let terracottaMuted = RGB(hex: "#E8C4B0")
    public static let sage = RGB(hex: "#7A8B6F")
    public static let dustyRose = RGB(hex: "#C4919B")
    public static let slate = RGB(hex: "#8B8589")

    /// Every colour with its token name, in the spec's order.
    public static let all: [(name: String, color: RGB)] = [
        ("linen", linen), ("parchment", parchment), ("cream", cream), ("espresso", espresso), ("walnut", walnut),
        ("clay", clay), ("terracotta", terracotta), ("terracottaLight", terracottaLight), ("terracottaMuted", terracottaMuted),
        ("sage", sage), ("dustyRose", dustyRose), ("slate", slate),
    ]

    /// The foreground/background pairs the web app sets text in, with the contrast each needs:
    /// 4.5:1 for body text, 3:1 for large text (WCAG: 24px, or 18.66px bold), which is how the
    /// primary buttons and badges set their labels.
    public static let textPairs: [(name: String, foreground: RGB, background: RGB, large: Bool)] = [
        ("espresso on linen", espresso, linen, false), ("espresso on parchment", espresso, parchment, false),
        ("espresso on cream", espresso, cream, false), ("walnut on linen", walnut, linen, false),
        ("walnut on parchment", walnut, parchment, false), ("walnut on cream", walnut, cream, false),
        ("espresso on terracottaMuted", espresso, terracottaMuted, false),
        ("white on terracotta (button labels, bold 19px)", .white, terracotta, true),
        ("espresso on sage (badge, bold 19px)", espresso, sage, true),
        ("espresso on dustyRose (badge, bold 19px)", espresso, dustyRose, true),
        ("espresso on terracottaLight (badge, bold 19px)", espresso, terracottaLight, true),
    ]
}

public enum Spacing {
    public static let xxs = 2, xs = 4, sm = 8, md = 12, lg = 16, xl = 24, xxl = 32, xxxl = 48
    public static let all: [(String, Int)] = [("xxs", xxs), ("xs", xs), ("sm", sm), ("md", md), ("lg", lg), ("xl", xl), ("xxl", xxl), ("xxxl", xxxl)]
}

public enum Radius {
    public static let subtle = 6, card = 12, modal = 16
    public static let all: [(String, Int)] = [("subtle", subtle), ("card", card), ("modal", modal)]
}

public struct Shadow: Sendable, Hashable {
    public let radius: Double, y: Double, opacity: Double

    public static let subtle = Shadow(radius: 3, y: 1, opacity: 0.08)
    public static let elevated = Shadow(radius: 12, y: 4, opacity: 0.12)
    public static let floating = Shadow(radius: 24, y: 8, opacity: 0.16)
    public static let all: [(String, Shadow)] = [("subtle", subtle), ("elevated", elevated), ("floating", floating)]

    /// Warm, espresso-coloured, as CSS `box-shadow`.
    public var css: String {
        let c = Palette.espresso
        return "0 \(Int(y))px \(Int(radius))px rgba(\(c.r), \(c.g), \(c.b), \(opacity))"
    }
}

public struct TypeStyle: Sendable, Hashable {
    public enum Family: String, Sendable { case playfair, sourceSerif, monospaced }
    public let family: Family
    public let size: Int
    public let weight: Int

    public static let largeTitle = TypeStyle(family: .playfair, size: 34, weight: 700)
    public static let title = TypeStyle(family: .playfair, size: 28, weight: 600)
    public static let title2 = TypeStyle(family: .playfair, size: 22, weight: 600)
    public static let title3 = TypeStyle(family: .sourceSerif, size: 20, weight: 600)
    public static let headline = TypeStyle(family: .sourceSerif, size: 17, weight: 600)
    public static let body = TypeStyle(family: .sourceSerif, size: 17, weight: 400)
    public static let callout = TypeStyle(family: .sourceSerif, size: 16, weight: 400)
    public static let subheadline = TypeStyle(family: .sourceSerif, size: 15, weight: 400)
    public static let footnote = TypeStyle(family: .sourceSerif, size: 13, weight: 400)
    /// Thread numbers, quantities, mesh counts.
    public static let data = TypeStyle(family: .monospaced, size: 17, weight: 500)
    public static let formSectionHeader = TypeStyle(family: .playfair, size: 15, weight: 600)

    public static let all: [(String, TypeStyle)] = [
        ("largeTitle", largeTitle), ("title", title), ("title2", title2), ("title3", title3), ("headline", headline),
        ("body", body), ("callout", callout), ("subheadline", subheadline), ("footnote", footnote), ("data", data),
        ("formSectionHeader", formSectionHeader),
    ]

    public var fontStack: String {
        switch family {
        case .playfair: "'Playfair Display', 'Iowan Old Style', Georgia, serif"
        case .sourceSerif: "'Source Serif 4', 'Iowan Old Style', Georgia, 'Times New Roman', serif"
        case .monospaced: "ui-monospace, 'SF Mono', Menlo, 'DejaVu Sans Mono', monospace"
        }
    }
}

/// Springs as SwiftUI defines them (response, damping fraction), with a CSS approximation.
public struct Spring: Sendable, Hashable {
    public let response: Double, damping: Double

    public static let gentle = Spring(response: 0.3, damping: 0.8)
    public static let bouncy = Spring(response: 0.25, damping: 0.65)
    public static let quick = Spring(response: 0.15, damping: 0.9)
    public static let staggerDelay = 0.05
    public static let all: [(String, Spring)] = [("gentle", gentle), ("bouncy", bouncy), ("quick", quick)]

    /// Duration and an easing curve that overshoots in proportion to how little damping there is.
    public var cssDuration: String { "\(Int(response * 1000))ms" }
    public var cssEasing: String {
        let overshoot = max(1.0, 1.0 + (1.0 - damping) * 1.5)
        return String(format: "cubic-bezier(0.34, %.2f, 0.64, 1)", overshoot)
    }
}
