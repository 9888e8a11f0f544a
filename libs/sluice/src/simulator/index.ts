/** The browser-safe part of the library: what the panel runs. */
export { isWindowAlgorithm } from '../algorithms/algorithm.types.js';
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
