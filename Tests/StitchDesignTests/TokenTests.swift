import Foundation
import StitchDesign
import Testing

@Suite("Design tokens match SPEC §4")
struct TokenTests {
    @Test func colours() {
        let expected = ["linen": "#F5F0E8", "parchment": "#EDE6D8", "cream": "#FAF7F2", "espresso": "#3B2F2F", "walnut": "#5C4A3D",
                        "clay": "#8B7355", "terracotta": "#C4704B", "terracottaLight": "#D4896A", "terracottaMuted": "#E8C4B0",
                        "sage": "#7A8B6F", "dustyRose": "#C4919B", "slate": "#8B8589"]
        #expect(Dictionary(uniqueKeysWithValues: Palette.all.map { ($0.name, $0.color.hex) }) == expected)
    }

    @Test func spacingRadiiShadowsMotion() {
        #expect(Spacing.all.map(\.1) == [2, 4, 8, 12, 16, 24, 32, 48])
        #expect(Radius.all.map(\.1) == [6, 12, 16])
        #expect(Shadow.subtle.radius == 3 && Shadow.subtle.y == 1 && Shadow.subtle.opacity == 0.08)
        #expect(Shadow.elevated.radius == 12 && Shadow.elevated.y == 4 && Shadow.elevated.opacity == 0.12)
        #expect(Shadow.floating.radius == 24 && Shadow.floating.y == 8 && Shadow.floating.opacity == 0.16)
        #expect(Spring.gentle.response == 0.3 && Spring.gentle.damping == 0.8)
        #expect(Spring.bouncy.response == 0.25 && Spring.bouncy.damping == 0.65)
        #expect(Spring.quick.response == 0.15 && Spring.quick.damping == 0.9)
        #expect(Spring.staggerDelay == 0.05)
    }

    @Test func typeScale() {
        #expect(TypeStyle.largeTitle.family == .playfair && TypeStyle.largeTitle.size == 34 && TypeStyle.largeTitle.weight == 700)
        #expect(TypeStyle.title.size == 28 && TypeStyle.title.weight == 600 && TypeStyle.title2.size == 22)
        #expect(TypeStyle.title3.family == .sourceSerif && TypeStyle.title3.size == 20)
        let sizes: [Int] = [TypeStyle.headline.size, TypeStyle.body.size, TypeStyle.callout.size, TypeStyle.subheadline.size, TypeStyle.footnote.size]
        #expect(sizes == [17, 17, 16, 15, 13])
        #expect(TypeStyle.data.family == .monospaced && TypeStyle.data.weight == 500)
        #expect(TypeStyle.formSectionHeader.family == .playfair && TypeStyle.formSectionHeader.size == 15)
    }

    @Test("Every text colour pair the app uses has enough contrast (4.5:1, or 3:1 for large text)")
    func contrast() {
        for pair in Palette.textPairs {
            let ratio = pair.foreground.contrast(with: pair.background)
            #expect(ratio >= (pair.large ? 3.0 : 4.5), "\(pair.name): \(String(format: "%.2f", ratio))")
        }
        #expect(abs(RGB.white.contrast(with: RGB(hex: "#000000")) - 21) < 0.01)
    }

    @Test("The stylesheet is generated from the tokens")
    func stylesheet() {
        let css = Stylesheet.css(fontsBase: "/fonts")
        for (name, color) in Palette.all { #expect(css.contains(color.hex), "\(name)") }
        #expect(css.contains("--color-terracotta-muted: #E8C4B0;"))
        #expect(css.contains("--space-xxxl: 48px;"))
        #expect(css.contains("--radius-card: 12px;"))
        #expect(css.contains("--shadow-elevated: 0 4px 12px rgba(59, 47, 47, 0.12);"))
        #expect(css.contains("--font-large-title: 700 34px/1.35 'Playfair Display'"))
        #expect(css.contains("--spring-bouncy: 250ms"))
        #expect(css.contains("@media (min-width: 768px)"))
    }
}
