/* pia_start_arm.S -- the agent's program entry for ARMv6 (Pi 1, Zero):
 * Debian armhf's start files (crt1.o, crti.o, crtbegin.o) are ARMv7
 * Thumb-2 code, which an ARM1176 cannot run, so the armv6 build links
 * with -nostartfiles and this ARM-mode _start instead.  It does what the
 * ELF ABI asks of an entry point: clear the frame, then
 *   __libc_start_main(main, argc, argv, init, fini, rtld_fini, stack_end)
 * with init and fini NULL (glibc >= 2.34 runs the program's own
 * init/fini arrays itself), rtld_fini from r0 as the dynamic linker left
 * it.  Position-independent: main's address is taken relative to pc.
 */
    .arm
    .syntax unified
    .text
    .align 2
    .globl _start
    .type _start, %function
_start:
    mov     fp, #0
    mov     lr, #0
    pop     {r1}                /* argc */
    mov     r2, sp              /* argv */
    push    {r2}                /* stack_end */
    push    {r0}                /* rtld_fini */
    mov     r3, #0              /* init */
    push    {r3}                /* fini */
    ldr     r0, .Lmain_off
.Lpc:
    add     r0, pc, r0          /* main */
    bl      __libc_start_main
    bl      abort
    .align 2
.Lmain_off:
    .word   main - (.Lpc + 8)
    .size _start, . - _start

    .section .note.GNU-stack, "", %progbits
