#include "textflag.h"

// func dotAVX2(a *int8, b *int16, n int) int32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

loop32:
	CMPQ CX, $32
	JL   tail16
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMADDWD  (DI), Y2, Y2
	VPMADDWD  32(DI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $64, DI
	SUBQ      $32, CX
	JMP       loop32

tail16:
	CMPQ CX, $16
	JL   reduce
	VPMOVSXBW (SI), Y2
	VPMADDWD  (DI), Y2, Y2
	VPADDD    Y2, Y0, Y0

reduce:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET
