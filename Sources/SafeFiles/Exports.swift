// The errors SafeFiles throws live in FileErrors (which the on-device library can depend on
// without the writer); code that imports SafeFiles names them as before.
@_exported public import FileErrors
