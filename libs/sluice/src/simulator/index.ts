export {
  MAX_SIMULATED_REQUESTS,
  requestTimes,
  simulatePolicy,
  type RequestPattern,
  type SimulatedPolicy,
  type SimulatedRequest,
  type SimulationBucket,
  type SimulationResult,
} from './policy.simulator.js';
