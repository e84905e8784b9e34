// Base64URL, JSONValue and the parser live in HaapiModel; driver users get them with one import.
@_exported import HaapiModel
