// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {XchainOrder} from "./XchainOrder.sol";

/// @title The deposit router: a source chain's `deposit_target`.
/// @notice Takes the deposit for a quoted order once, keyed by its quote hash, and emits the
/// `Deposited` event the backend reads to move the order on. No owner and no constructor
/// storage, so its runtime code works wherever it is placed (the local chains copy it to a fixed
/// address with `anvil_setCode`).
contract XchainRouter {
    using SafeERC20 for IERC20;

    event Deposited(bytes32 indexed quoteHash, address indexed depositor, address token, uint256 amount);

    error AlreadyDeposited(bytes32 quoteHash);
    error WrongDepositTarget();
    error WrongSourceChain();
    error WrongValue();

    mapping(bytes32 quoteHash => bool) public deposited;

    /// @notice Deposit for an order from the caller's own funds.
    function deposit(XchainOrder.Order calldata order) external payable {
        _deposit(order, msg.sender);
    }

    /// @notice Deposit for an order from the caller's funds, naming `depositor` as the user it is
    /// for (the gasless executor names the signer). Funds always come from `msg.sender`.
    function depositFor(XchainOrder.Order calldata order, address depositor) external payable {
        _deposit(order, depositor);
    }

    /// @notice What the router takes for an order: `amountIn`, less the relay gas of a gasless
    /// order whose user pays it (the executor has already paid that part to the fee recipient).
    function depositAmount(XchainOrder.Order calldata order) public pure returns (uint256) {
        return order.gasless && !order.sponsorFees ? order.amountIn - order.sponsorGas : order.amountIn;
    }

    function _deposit(XchainOrder.Order calldata order, address depositor) private {
        // An order quoted for another router or chain would be priced and watched elsewhere.
        if (order.depositTarget != bytes32(uint256(uint160(address(this))))) revert WrongDepositTarget();
        if (order.srcChainId != block.chainid) revert WrongSourceChain();
        bytes32 quoteHash = XchainOrder.hash(order);
        if (deposited[quoteHash]) revert AlreadyDeposited(quoteHash);
        deposited[quoteHash] = true;

        uint256 amount = depositAmount(order);
        address token = address(uint160(uint256(order.srcToken)));
        if (token == address(0)) {
            if (msg.value != amount) revert WrongValue();
        } else {
            if (msg.value != 0) revert WrongValue();
            IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        }
        emit Deposited(quoteHash, depositor, token, amount);
    }
}
