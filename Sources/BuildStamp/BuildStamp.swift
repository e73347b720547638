/// What a build was made from, beside each product's version: `--version`, `/health` and the web
/// apps' settings show both, so an operator can name exactly what runs.
public enum BuildStamp {
    /// The commit (12 hex digits; `-modified` when the tree had uncommitted changes; "unknown"
    /// when built outside a Git checkout). Written at build time by the CommitStamp plugin.
    public static let commit: String = buildCommit

    /// "0.4.0 (commit 1a2b3c4d5e6f)": a version and the commit it was built from, in one line.
    public static func describe(_ version: String) -> String {
        "\(version) (commit \(commit))"
    }
}
