package onnx

// TensorProto.DataType values (onnx.proto).
const (
	dtFloat    = 1
	dtUint8    = 2
	dtInt8     = 3
	dtUint16   = 4
	dtInt16    = 5
	dtInt32    = 6
	dtInt64    = 7
	dtString   = 8
	dtBool     = 9
	dtFloat16  = 10
	dtDouble   = 11
	dtUint32   = 12
	dtUint64   = 13
	dtCplx64   = 14
	dtCplx128  = 15
	dtBfloat16 = 16
	// 17-20: FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ;
	// 21-23: UINT4, INT4, FLOAT4E2M1 (two per byte).
	dtLast = 23
)

// dtypeBits is the width of one element in bits (0: not a fixed-size type).
func dtypeBits(dt int32) int64 {
	switch dt {
	case dtUint8, dtInt8, dtBool, 17, 18, 19, 20:
		return 8
	case dtUint16, dtInt16, dtFloat16, dtBfloat16:
		return 16
	case dtFloat, dtInt32, dtUint32:
		return 32
	case dtInt64, dtDouble, dtUint64, dtCplx64:
		return 64
	case dtCplx128:
		return 128
	case 21, 22, 23:
		return 4
	}
	return 0
}

// isFloat reports a floating-point type: initializers of such a type are
// trainable parameters.
func isFloat(dt int32) bool {
	switch dt {
	case dtFloat, dtFloat16, dtDouble, dtBfloat16, 17, 18, 19, 20, 23:
		return true
	}
	return false
}

// isInt reports an integer type whose values constant folding tracks.
func isInt(dt int32) bool {
	switch dt {
	case dtUint8, dtInt8, dtUint16, dtInt16, dtInt32, dtInt64, dtUint32, dtUint64, dtBool:
		return true
	}
	return false
}

// checkDtype refuses unknown and string element types.
func checkDtype(dt int32) error {
	switch {
	case dt == dtString:
		return errorf(ErrUnsupported, "string tensors (data type 8) have no fixed size")
	case dtypeBits(dt) == 0:
		return errorf(ErrInvalid, "data type %d (valid: 1-%d except 8, onnx.proto TensorProto.DataType)", dt, dtLast)
	}
	return nil
}

// sizeBytes is the storage size of n elements of type dt, rounded up.
func sizeBytes(dt int32, n int64) int64 {
	return (n*dtypeBits(dt) + 7) / 8
}
