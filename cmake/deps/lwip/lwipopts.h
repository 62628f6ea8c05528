/* lwIP configuration of the bare-metal network port (platform/lwip): one
 * Ethernet interface, NO_SYS (polled from the application's loop, no RTOS),
 * the raw UDP API over IPv4 with ARP and ICMP echo, no TCP, static pools only
 * (no C library heap). Sized for the SDK's CoAP client: one datagram of at
 * most ~1.1 KB in flight each way. See docs/porting.md. */
#ifndef EDGEADMM_LWIPOPTS_H
#define EDGEADMM_LWIPOPTS_H

/* No operating system: no threads, no locking, timers run by
 * sys_check_timeouts() from the polling loop. */
#define NO_SYS 1
#define SYS_LIGHTWEIGHT_PROT 0
#define LWIP_NETCONN 0
#define LWIP_SOCKET 0
#define LWIP_TIMERS 1

/* Protocols: IPv4 + ARP + ICMP (echo) + UDP; DHCP optional (the port's
 * NetworkConfig chooses a static address or DHCP). A build for a static
 * address only defines LWIP_DHCP 0 on the command line (lwip::core_static:
 * about 4.8 KB less flash). */
#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_ARP 1
#define LWIP_ETHERNET 1
#define LWIP_ICMP 1
#define LWIP_UDP 1
#define LWIP_TCP 0
#define LWIP_RAW 0
#ifndef LWIP_DHCP
#define LWIP_DHCP 1
#endif
#define LWIP_AUTOIP 0
#define LWIP_IGMP 0
#define LWIP_DNS 0
#define LWIP_SINGLE_NETIF 1
#define LWIP_NETIF_LINK_CALLBACK 0
#define LWIP_NETIF_STATUS_CALLBACK 0
#define IP_REASSEMBLY 0 /* CoAP blocks fit one Ethernet frame */
#define IP_FRAG 0
#define ARP_TABLE_SIZE 2
#define ARP_QUEUEING 0 /* the newest datagram waits for the ARP reply */
#define LWIP_RAND() edgeadmm_lwip_rand()

/* Memory: static pools and a small lwIP heap (MEM_SIZE) for transmitted
 * datagrams; received frames go into PBUF_POOL buffers of one full frame. */
#define MEM_LIBC_MALLOC 0
#define MEMP_MEM_MALLOC 0
#define MEM_ALIGNMENT 4
#define MEM_SIZE 2560
#define MEMP_NUM_PBUF 4
#define MEMP_NUM_UDP_PCB 2
/* One frame being received + UdpLink's queue of two datagrams. */
#define PBUF_POOL_SIZE 3
#define PBUF_POOL_BUFSIZE 1520 /* 1514-byte frame + alignment */

/* No statistics or debug output; assertions go to the SDK's panic hook. */
#define LWIP_STATS 0
#define LWIP_NETIF_HOSTNAME 0
#define LWIP_DBG_TYPES_ON 0

#ifdef __cplusplus
extern "C" {
#endif
/* Pseudo-random numbers for DHCP transaction ids (not secret). */
unsigned int edgeadmm_lwip_rand(void);
#ifdef __cplusplus
}
#endif

#endif /* EDGEADMM_LWIPOPTS_H */
