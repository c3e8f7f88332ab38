//! The part of XLA's FFI C ABI (`xla/ffi/api/c_api.h`, API version 0.1 and later) the handlers
//! read and write: the call frame, its buffers and scalar attributes, the metadata query, and
//! the API's error and stream functions. Field order and types follow the header exactly; each
//! struct begins with its own `struct_size`, which XLA fills, so a reader checks it before
//! reading a field that a later minor version added.

use std::ffi::c_void;

/// `XLA_FFI_Extension_Metadata`: the call is a query of the handler's API version and traits.
pub(crate) const EXTENSION_METADATA: i32 = 1;
/// `XLA_FFI_ExecutionStage_EXECUTE`.
pub(crate) const STAGE_EXECUTE: i32 = 3;
/// `XLA_FFI_ArgType_BUFFER` / `XLA_FFI_RetType_BUFFER`.
pub(crate) const BUFFER: i32 = 1;
/// `XLA_FFI_AttrType_SCALAR`.
pub(crate) const ATTR_SCALAR: i32 = 3;
/// `XLA_FFI_Error_Code_INVALID_ARGUMENT`, `_INTERNAL`.
pub(crate) const INVALID_ARGUMENT: i32 = 3;
pub(crate) const INTERNAL: i32 = 13;

/// `XLA_FFI_DataType`: the ones the handlers take.
pub(crate) const S32: i32 = 4;
pub(crate) const S64: i32 = 5;
pub(crate) const F16: i32 = 10;
pub(crate) const F32: i32 = 11;
pub(crate) const F64: i32 = 12;
pub(crate) const BF16: i32 = 16;

/// The version of the API the handlers were written against: every field they read exists
/// since 0.1 (the stream and error functions, the call frame up to its attributes).
pub(crate) const API_MAJOR: i32 = 0;
pub(crate) const API_MINOR: i32 = 1;

/// A struct of the API whose first two fields are its `struct_size` and `extension_start`.
macro_rules! ffi_struct {
    ($(#[$doc:meta])* $name:ident { $($field:ident: $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[repr(C)]
        pub(crate) struct $name {
            pub(crate) struct_size: usize,
            pub(crate) extension_start: *mut ExtensionBase,
            $(pub(crate) $field: $ty),*
        }
    };
}

#[repr(C)]
pub(crate) struct ExtensionBase {
    pub(crate) struct_size: usize,
    pub(crate) kind: i32,
    pub(crate) next: *mut ExtensionBase,
}

ffi_struct!(ApiVersion { major: i32, minor: i32 });

#[repr(C)]
pub(crate) struct Metadata {
    pub(crate) struct_size: usize,
    pub(crate) api_version: ApiVersion,
    pub(crate) traits: u32,
}

#[repr(C)]
pub(crate) struct MetadataExtension {
    pub(crate) base: ExtensionBase,
    pub(crate) metadata: *mut Metadata,
}

ffi_struct!(Buffer { dtype: i32, data: *mut c_void, rank: i64, dims: *const i64 });

// `XLA_FFI_Args` and `XLA_FFI_Rets` (the same layout).
ffi_struct!(List { size: i64, types: *const i32, items: *const *mut c_void });

#[repr(C)]
pub(crate) struct ByteSpan {
    pub(crate) ptr: *const u8,
    pub(crate) len: usize,
}

#[repr(C)]
pub(crate) struct Scalar {
    pub(crate) dtype: i32,
    pub(crate) value: *const c_void,
}

ffi_struct!(Attrs {
    size: i64,
    types: *const i32,
    names: *const *const ByteSpan,
    attrs: *const *const c_void,
});

ffi_struct!(CallFrame {
    api: *const Api,
    ctx: *mut c_void,
    stage: i32,
    args: List,
    rets: List,
    attrs: Attrs,
});

/// An `XLA_FFI_Error*`, owned by XLA once returned.
pub(crate) type ErrorPtr = *mut c_void;

ffi_struct!(ErrorCreateArgs { message: *const std::ffi::c_char, errc: i32 });

ffi_struct!(StreamGetArgs { ctx: *mut c_void, stream: *mut c_void });

ffi_struct!(DeviceOrdinalGetArgs { ctx: *mut c_void, device_ordinal: i32 });

type Fn<A> = Option<unsafe extern "C" fn(*mut A) -> ErrorPtr>;
type Unused = *const c_void;

/// `XLA_FFI_Api`: the functions in header order (the unused ones as plain pointers).
#[repr(C)]
pub(crate) struct Api {
    pub(crate) struct_size: usize,
    pub(crate) extension_start: *mut ExtensionBase,
    pub(crate) api_version: ApiVersion,
    pub(crate) internal_api: Unused,
    pub(crate) error_create: Fn<ErrorCreateArgs>,
    /// Error_GetMessage, Error_Destroy, Handler_Register.
    pub(crate) unused_before_stream: [Unused; 3],
    pub(crate) stream_get: Fn<StreamGetArgs>,
    /// Type_Register … RunId_Get (twelve functions).
    pub(crate) unused_before_device_ordinal: [Unused; 12],
    pub(crate) device_ordinal_get: Fn<DeviceOrdinalGetArgs>,
}

/// The `struct_size` values the header's `XLA_FFI_STRUCT_SIZE` gives (to the end of the last
/// field, without trailing padding), for the structs the handlers fill in.
pub(crate) const API_VERSION_SIZE: usize = 24;
pub(crate) const ERROR_CREATE_ARGS_SIZE: usize = 28;
pub(crate) const STREAM_GET_ARGS_SIZE: usize = 32;
pub(crate) const DEVICE_ORDINAL_GET_ARGS_SIZE: usize = 28;
/// The smallest `XLA_FFI_Metadata` / `XLA_FFI_Api` that hold the fields read or written here.
pub(crate) const METADATA_SIZE: usize = 36;
pub(crate) const API_SIZE_WITH_DEVICE_ORDINAL: usize = 192;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The offsets the header gives these structs on a 64-bit target.
    #[test]
    fn layouts_match_the_header() {
        assert_eq!(offset_of!(ExtensionBase, next), 16);
        assert_eq!(size_of::<ApiVersion>(), 24);
        assert_eq!(offset_of!(Metadata, traits), 32);
        assert_eq!(offset_of!(Buffer, dims), 40);
        assert_eq!(size_of::<List>(), 40);
        assert_eq!(offset_of!(Attrs, attrs), 40);
        assert_eq!(offset_of!(CallFrame, stage), 32);
        assert_eq!(offset_of!(CallFrame, args), 40);
        assert_eq!(offset_of!(CallFrame, rets), 80);
        assert_eq!(offset_of!(CallFrame, attrs), 120);
        assert_eq!(offset_of!(Api, error_create), 48);
        assert_eq!(offset_of!(Api, stream_get), 80);
        assert_eq!(offset_of!(Api, device_ordinal_get), 184);
        assert_eq!(offset_of!(DeviceOrdinalGetArgs, device_ordinal), 24);
        assert_eq!(offset_of!(Scalar, value), 8);
        // the struct sizes the header's XLA_FFI_STRUCT_SIZE gives
        assert_eq!(API_VERSION_SIZE, size_of::<ApiVersion>());
        assert_eq!(ERROR_CREATE_ARGS_SIZE, offset_of!(ErrorCreateArgs, errc) + 4);
        assert_eq!(STREAM_GET_ARGS_SIZE, size_of::<StreamGetArgs>());
        assert_eq!(
            DEVICE_ORDINAL_GET_ARGS_SIZE,
            offset_of!(DeviceOrdinalGetArgs, device_ordinal) + 4
        );
        assert_eq!(METADATA_SIZE, offset_of!(Metadata, traits) + 4);
        assert_eq!(API_SIZE_WITH_DEVICE_ORDINAL, size_of::<Api>());
    }
}
