// memcpy rate by source alignment (the kit builds it as /tmp/ct/memcpy-align): copies
// MiB mebibytes from a source at offset % 64 = 0, 16, 8, 1, 37 into a page-aligned
// 32 MiB buffer, in 32 MiB fills of 1 MiB pieces over THREADS threads (as fzwgpu's
// staged uploads do), best of five. Usage: memcpy-align MiB THREADS
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <stdatomic.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static char *S,*D; static size_t N; static atomic_size_t next; static const size_t PIECE=1<<20;
static void* work(void*a){(void)a;for(;;){size_t p=atomic_fetch_add(&next,PIECE);if(p>=N)break;size_t m=N-p<PIECE?N-p:PIECE;memcpy(D+p,S+p,m);}return 0;}
int main(int argc,char**argv){
  size_t total=(size_t)atol(argv[1])<<20, chunk=32<<20; int T=atoi(argv[2]);
  char*src=malloc(total+4096); char*dst=aligned_alloc(4096,chunk);
  memset(src,1,total+4096); memset(dst,0,chunk);
  int offs[]={0,16,8,1,37,-1};
  for(int rep=0;rep<2;rep++) for(int oi=0;offs[oi]>=0;oi++){
    char*s=(char*)(((size_t)src+4095)/4096*4096)+offs[oi]; double best=1e9;
    for(int it=0;it<5;it++){ double t0=now();
      for(size_t c=0;c<total;c+=chunk){ N=total-c<chunk?total-c:chunk; S=s+c; D=dst; atomic_store(&next,0);
        pthread_t th[64]; for(int i=0;i<T;i++)pthread_create(&th[i],0,work,0); for(int i=0;i<T;i++)pthread_join(th[i],0);}
      double t=now()-t0; if(t<best)best=t; }
    printf("memcpy %zu MiB, %d threads, src %% 64 = %2d: %.2f ms, %.1f GB/s\n",total>>20,T,offs[oi],best*1e3,total/best/1e9);
  }
}
