/// Selene's version: the one place it is written. The web app's More page and `selene --version`
/// show it.
public enum SeleneVersion {
    public static let current = "0.7.0"
}
