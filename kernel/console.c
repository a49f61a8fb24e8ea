// SPDX-License-Identifier: MIT
/*
 * 16550 UART driver, polled. Registers (PC16550D datasheet, table II):
 * +0 THR/DLL, +1 IER/DLM, +2 FCR, +3 LCR (bit 7 DLAB), +4 MCR, +5 LSR
 * (bit 5 THR empty), +7 scratch.
 */
#include <stdarg.h>
#include <stdint.h>
#include "console.h"
#include "lib/printf.h"
#include "spinlock.h"
#include "cpu.h"
#include "stoppoint.h"
#include "x86.h"

#define UART_CLOCK_DIV_BASE 115200
#define REG_THR		    0
#define REG_IER		    1
#define REG_FCR		    2
#define REG_LCR		    3
#define REG_MCR		    4
#define REG_LSR		    5
#define REG_MSR		    6
#define REG_SCR		    7
#define LCR_8N1		    0x03
#define LCR_DLAB	    0x80
#define LSR_THRE	    0x20
#define MCR_DTR_RTS_OUT2    0x0b
#define MCR_LOOPBACK	    0x10
#define MCR_RTS_OUT2	    0x0a
#define MSR_CTS_DCD	    0x90 /* what MCR_RTS_OUT2 reads as in loopback */
#define COM1_PORT	    0x3f8
/* PAUSEs to wait for THR empty: ~1 ms, far more than one byte at 9600. */
#define TX_SPIN_LIMIT 200000
/* Give up on a UART that keeps timing out rather than slow every print. */
#define TX_TIMEOUTS_FATAL 8

static struct {
	uint16_t port; /* 0: no UART, output discarded */
	uint32_t baud;
	unsigned timeouts;
	bool panic;
	char why[96];
	struct spinlock lock;
	bool irq_was_on; /* the holder's, restored at unlock */
	/* Who wrote last, and whether its last byte ended a line. */
	unsigned last_writer;
	bool mid_line;
} con = {.lock = {.name = "console", .quiet = true}};

/*
 * A UART is there if its scratch register holds a value and loopback
 * works: in loopback the modem outputs come back on MSR (RTS as CTS, OUT2
 * as DCD), which a plain latch or an absent port does not do, and a byte
 * sent comes back on RBR. Bounded: an absent port never sets data-ready.
 */
static bool uart_present(uint16_t port)
{
	uint8_t msr;
	bool ok;

	outb(port + REG_SCR, 0x5a);
	if (inb(port + REG_SCR) != 0x5a)
		return false;
	outb(port + REG_MCR, MCR_LOOPBACK | MCR_RTS_OUT2);
	msr = inb(port + REG_MSR) & 0xf0;
	outb(port + REG_THR, 0xae);
	/* The byte comes back on RBR; a few reads give it time. */
	for (int i = 0; i < 1000 && !(inb(port + REG_LSR) & 1); i++)
		cpu_relax();
	ok = msr == MSR_CTS_DCD && inb(port + REG_THR) == 0xae;
	outb(port + REG_MCR, MCR_DTR_RTS_OUT2);
	return ok;
}

static void uart_setup(uint16_t port, uint32_t baud)
{
	uint16_t div = (uint16_t)(UART_CLOCK_DIV_BASE / baud);

	outb(port + REG_IER, 0x00); /* polled: no UART interrupts */
	outb(port + REG_LCR, LCR_DLAB);
	outb(port + REG_THR, div & 0xff);
	outb(port + REG_IER, div >> 8);
	outb(port + REG_LCR, LCR_8N1);
	outb(port + REG_FCR, 0x07); /* enable and clear the FIFOs */
	outb(port + REG_MCR, MCR_DTR_RTS_OUT2);
}

bool console_init(const struct console_cfg *cfg)
{
	con.why[0] = '\0';
	if (uart_present(cfg->port)) {
		con.port = cfg->port;
		con.baud = cfg->baud;
	} else if (cfg->port != COM1_PORT && uart_present(COM1_PORT)) {
		con.port = COM1_PORT;
		con.baud = UART_CLOCK_DIV_BASE;
		ksnprintf(con.why, sizeof(con.why),
			  "no UART at port 0x%x (console=): using COM1 "
			  "(0x3f8) at 115200",
			  cfg->port);
	} else {
		con.port = 0;
		return false;
	}
	uart_setup(con.port, con.baud);
	return con.why[0] == '\0';
}

const char *console_describe(void)
{
	return con.why;
}

uint16_t console_port(void)
{
	return con.port;
}

static void uart_putc(char c)
{
	int spins = 0;

	if (!con.port)
		return;
	while (!(inb(con.port + REG_LSR) & LSR_THRE)) {
		if (++spins > TX_SPIN_LIMIT) {
			if (++con.timeouts >= TX_TIMEOUTS_FATAL)
				con.port = 0;
			return;
		}
		cpu_relax();
	}
	outb(con.port + REG_THR, (uint8_t)c);
}

void console_write_locked(const char *s, size_t n)
{
	if (!n)
		return;
	con.last_writer = this_cpu();
	con.mid_line = true;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
		/* selftest=hang-ap fault_at=console-lock: a line cut short */
		if (i == n / 2)
			stop_point(STOP_CONSOLE_LOCK);
	}
	con.mid_line = s[n - 1] != '\n';
}

/*
 * Held with interrupts off: a cross-call handler may print, and must
 * never find the lock held by the code it interrupted on its own CPU.
 * The wait itself is with interrupts as they were (the others' requests
 * still answered), each look at the lock with them off.
 */
void console_lock(void)
{
	bool on;

	if (con.panic)
		return;
	on = spin_lock_irqsave(&con.lock);
	con.irq_was_on = on;
	/*
	 * Another CPU's line left unfinished (it stopped mid-line, its lock
	 * released for it): ended here, so that this line stays whole.
	 */
	if (con.mid_line && con.last_writer != this_cpu())
		console_write_locked("\n", 1);
}

void console_unlock(void)
{
	bool on = con.irq_was_on;

	if (con.panic)
		return;
	spin_unlock(&con.lock);
	irq_restore(on);
}

void console_enter_panic(void)
{
	con.panic = true;
}

static void sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	console_write_locked(s, n);
}

void kvprintf(const char *fmt, va_list ap)
{
	console_lock();
	kvformat(sink, NULL, fmt, ap);
	console_unlock();
}

void kprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}
