/// Stitchuation's version: the one place it is written. The server's Settings page, `stitch
/// --version` and `stitchuation --version` show it.
public enum StitchVersion {
    public static let current = "0.4.0"
}
