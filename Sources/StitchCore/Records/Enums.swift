import Foundation

/// What a thread is made of (wool, cotton, silk, synthetic, a blend, other).
public enum FiberType: String, Codable, Sendable, CaseIterable, Hashable {
    case wool, cotton, silk, synthetic, blend, other

    public var displayName: String { rawValue.capitalized }
}

/// Where a project stands: planned, in progress, at finishing, completed.
public enum ProjectStatus: String, Codable, Sendable, CaseIterable, Hashable {
    /// Not started: it holds sections and requirements and shows readiness ("can I start this?").
    case planned
    case wip
    case atFinishing = "at_finishing"
    case completed

    public var displayName: String {
        switch self {
        case .planned: "Planned"
        case .wip: "WIP"
        case .atFinishing: "At Finishing"
        case .completed: "Completed"
        }
    }
}

/// Where a project's section stands.
public enum SectionStatus: String, Codable, Sendable, CaseIterable, Hashable {
    case notStarted = "not_started"
    case inProgress = "in_progress"
    case completed

    public var displayName: String {
        switch self {
        case .notStarted: "Not started"
        case .inProgress: "In progress"
        case .completed: "Completed"
        }
    }
}

/// The ways to sign in besides email and password.
public enum IdentityProvider: String, Codable, Sendable, CaseIterable, Hashable {
    case apple, instagram, tiktok, email
}

/// What a hand-written shopping line is (`ShoppingLine`).
public enum ShoppingLineKind: String, Codable, Sendable, CaseIterable, Hashable {
    /// Skeins to buy, beside what the projects need.
    case added
    /// A computed line set aside without buying.
    case dismissed
}
