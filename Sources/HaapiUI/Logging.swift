/// The UI kit's log tags (seed 001): filter with the `HAAPI_UI` prefix.
public enum UIKitFollowUpTag: String, FollowUpTag, CaseIterable {
    case theming = "HAAPI_UI_THEMING"
    case component = "HAAPI_UI_COMPONENT"
    case layout = "HAAPI_UI_LAYOUT"
}
