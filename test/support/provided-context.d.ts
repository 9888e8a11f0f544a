// Types the values test/global-setup.ts hands to tests through `inject(...)`.
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    /** redis:// URL of a standalone Redis server (TEST_REDIS_URL, or one started for the run). */
    redisUrl: string;
    /** Comma-separated host:port list of Redis Cluster nodes (TEST_REDIS_CLUSTER_NODES, or a 3-master cluster started for the run). */
    clusterNodes: string;
    /** Names this run's test databases: sluice_t_<testRunId>_<random>. */
    testRunId: string;
    /** postgres:// URL of the maintenance database on the server test databases are created on. */
    postgresUrl: string;
    /** Why that PostgreSQL cannot be used; empty when it can. */
    postgresProblem: string;
  }
}
