export async function runFootprint() { return { notMeasurable: 'todo' }; }
