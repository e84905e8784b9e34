/// The UI kit's log tags (seed 001): filter with the `HAAPI_UI` prefix.
public enum UIKitFollowUpTag: String, FollowUpTag, CaseIterable {
    /// Loading the theme and its overrides.
    case theming = "HAAPI_UI_THEMING"
    /// Building screens.
    case component = "HAAPI_UI_COMPONENT"
    /// Which screen is shown.
    case layout = "HAAPI_UI_LAYOUT"
}
