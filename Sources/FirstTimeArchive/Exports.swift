// The records, the rule table, the plain format and the archive encoder live in FirstTimeCore
// (no libplist, shared with the on-device FirstTimeMigration library); importing
// FirstTimeArchive gives them too.
@_exported public import FirstTimeCore
