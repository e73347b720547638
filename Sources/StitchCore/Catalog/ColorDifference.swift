import Foundation

/// A colour in CIE L*a*b* (D65 white, from sRGB).
public struct Lab: Sendable, Hashable {
    public var l: Double
    public var a: Double
    public var b: Double

    public init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// The colour of `#RRGGBB` (nil for anything else).
    public init?(hex: String) {
        guard Rules.isHexColor(hex), let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
        self.init(red: Double(value >> 16 & 0xFF), green: Double(value >> 8 & 0xFF), blue: Double(value & 0xFF))
    }

    /// The colour of sRGB channels 0…255.
    public init(red: Double, green: Double, blue: Double) {
        func linear(_ channel: Double) -> Double {
            let c = channel / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let r = linear(red), g = linear(green), bl = linear(blue)
        // sRGB → XYZ (D65), relative to the white point.
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * bl) / 0.95047
        let y = (0.2126729 * r + 0.7151522 * g + 0.0721750 * bl) / 1.00000
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * bl) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        l = 116 * f(y) - 16
        a = 500 * (f(x) - f(y))
        b = 200 * (f(y) - f(z))
    }
}

/// How different two colours look.
public enum ColorDifference {
    /// CIEDE2000 (Sharma, Wu and Dalal's formulation, kL = kC = kH = 1).
    public static func ciede2000(_ first: Lab, _ second: Lab) -> Double {
        let c1 = hypot(first.a, first.b), c2 = hypot(second.a, second.b)
        let cMean = (c1 + c2) / 2
        let c7 = pow(cMean, 7)
        let g = 0.5 * (1 - sqrt(c7 / (c7 + pow(25, 7))))
        let a1 = (1 + g) * first.a, a2 = (1 + g) * second.a
        let cp1 = hypot(a1, first.b), cp2 = hypot(a2, second.b)
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h >= 0 ? h : h + 360
        }
        let hp1 = hue(first.b, a1), hp2 = hue(second.b, a2)
        let dL = second.l - first.l
        let dC = cp2 - cp1
        var dh = 0.0
        if cp1 * cp2 != 0 {
            dh = hp2 - hp1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * sqrt(cp1 * cp2) * sin(dh * .pi / 360)
        let lMean = (first.l + second.l) / 2
        let cpMean = (cp1 + cp2) / 2
        var hMean = hp1 + hp2
        if cp1 * cp2 != 0 {
            if abs(hp1 - hp2) <= 180 { hMean /= 2 } else if hp1 + hp2 < 360 { hMean = (hMean + 360) / 2 } else { hMean = (hMean - 360) / 2 }
        }
        func rad(_ degrees: Double) -> Double { degrees * .pi / 180 }
        let t = 1 - 0.17 * cos(rad(hMean - 30)) + 0.24 * cos(rad(2 * hMean)) + 0.32 * cos(rad(3 * hMean + 6)) - 0.20 * cos(rad(4 * hMean - 63))
        let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let cp7 = pow(cpMean, 7)
        let rc = 2 * sqrt(cp7 / (cp7 + pow(25, 7)))
        let sl = 1 + 0.015 * pow(lMean - 50, 2) / sqrt(20 + pow(lMean - 50, 2))
        let sc = 1 + 0.045 * cpMean
        let sh = 1 + 0.015 * cpMean * t
        let rt = -sin(rad(2 * dTheta)) * rc
        let tl = dL / sl, tc = dC / sc, th = dH / sh
        return sqrt(tl * tl + tc * tc + th * th + rt * tc * th)
    }
}
